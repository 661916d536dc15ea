/* runtime/aoti/elf.c: reads a model .so's dynamic section and symbol table before it is
 * loaded, so a package that cannot run here is refused with the reasons named (a
 * dlopen failure would name one symbol at best, and a lazily bound one would crash
 * later). Only 64-bit little-endian ELF for this host's machine is accepted. */
#define _GNU_SOURCE /* memmem */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aoti_internal.h"

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#define HOST_MACHINE_NAME "x86-64"
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#define HOST_MACHINE_NAME "aarch64"
#else
#error "libshimrt-aoti: unsupported host machine"
#endif

static const char *machine_name(unsigned m) {
    switch (m) {
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "aarch64";
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    case EM_RISCV: return "riscv";
    case EM_PPC64: return "ppc64";
    case EM_S390: return "s390";
    default: return "unknown";
    }
}

/* A NUL-terminated string at off inside [base, base+size), else NULL. */
static const char *str_at(const uint8_t *base, uint64_t size, uint64_t off) {
    if (off >= size) return NULL;
    const char *s = (const char *)base + off;
    return memchr(s, '\0', size - off) ? s : NULL;
}

static bool has_prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* Section header i, bounds-checked. */
static const Elf64_Shdr *section(const uint8_t *m, size_t size, const Elf64_Ehdr *eh, unsigned i) {
    if (i >= eh->e_shnum) return NULL;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff) + i;
    if (sh->sh_type != SHT_NOBITS && (sh->sh_offset > size || sh->sh_size > size - sh->sh_offset))
        return NULL;
    return sh;
}

static int check_mapped(const uint8_t *m, size_t size, const char *name, AotiSoReport *r) {
    if (size < sizeof(Elf64_Ehdr) || memcmp(m, ELFMAG, SELFMAG) != 0)
        return aoti_fail("%s is not an ELF shared object", name);
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
    if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
        return aoti_fail("%s is a %s %s-endian ELF file; this host runs 64-bit little-endian "
                         "%s code",
                         name, eh->e_ident[EI_CLASS] == ELFCLASS32 ? "32-bit" : "64-bit",
                         eh->e_ident[EI_DATA] == ELFDATA2MSB ? "big" : "little", HOST_MACHINE_NAME);
    if (eh->e_machine != HOST_MACHINE)
        return aoti_fail("%s was compiled for %s (ELF machine %u); this host is %s: compile "
                         "the package on (or for) this machine",
                         name, machine_name(eh->e_machine), (unsigned)eh->e_machine,
                         HOST_MACHINE_NAME);
    if (eh->e_type != ET_DYN)
        return aoti_fail("%s is not a shared object (ELF type %u)", name, eh->e_type);
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
        (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size - eh->e_shoff)
        return aoti_fail("%s: ELF section table is truncated or malformed", name);

    const Elf64_Shdr *dynsym = NULL, *dynamic = NULL;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        const Elf64_Shdr *sh = section(m, size, eh, i);
        if (!sh) return aoti_fail("%s: ELF section %u lies outside the file (truncated?)", name, i);
        if (sh->sh_type == SHT_DYNSYM) dynsym = sh;
        if (sh->sh_type == SHT_DYNAMIC) dynamic = sh;
    }
    if (!dynsym || !dynamic) return aoti_fail("%s has no dynamic symbol table", name);

    int problems = 0;
    /* The libraries it needs. */
    const Elf64_Shdr *dstr = section(m, size, eh, dynamic->sh_link);
    if (!dstr) return aoti_fail("%s: malformed dynamic section", name);
    const Elf64_Dyn *dyn = (const Elf64_Dyn *)(m + dynamic->sh_offset);
    size_t ndyn = dynamic->sh_size / sizeof(Elf64_Dyn);
    aoti_fail("%s cannot run on libshimrt:", name);
    for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
        if (dyn[i].d_tag != DT_NEEDED) continue;
        const char *lib = str_at(m + dstr->sh_offset, dstr->sh_size, dyn[i].d_un.d_val);
        if (!lib) continue;
        if (has_prefix(lib, "libtorch") || has_prefix(lib, "libc10")) {
            if (!r->libtorch)
                aoti_fail_append("\n  it is linked to libtorch (%s): compile it with "
                                 "inductor_configs={\"aot_inductor.link_libtorch\": False}",
                                 lib);
            r->libtorch = 1;
            problems++;
        } else if (has_prefix(lib, "libcuda") || has_prefix(lib, "libcudart") ||
                   has_prefix(lib, "libnvrtc") || has_prefix(lib, "libcublas")) {
            if (r->cuda_package) { /* the system's loader finds the driver's libcuda */
                r->cuda = 1;
                continue;
            }
            if (!r->cuda)
                aoti_fail_append("\n  it was compiled for CUDA (needs %s); libshimrt runs CPU "
                                 "packages only: compile the model on the CPU",
                                 lib);
            r->cuda = 1;
            problems++;
        }
    }
    /* The functions it calls. */
    const Elf64_Shdr *sstr = section(m, size, eh, dynsym->sh_link);
    if (!sstr || dynsym->sh_entsize != sizeof(Elf64_Sym))
        return aoti_fail("%s: malformed dynamic symbol table", name);
    const Elf64_Sym *syms = (const Elf64_Sym *)(m + dynsym->sh_offset);
    size_t nsyms = dynsym->sh_size / sizeof(Elf64_Sym);
    size_t libtorch_syms = 0;
    const char *first_cxx = NULL, *cuda_fn = NULL;
    /* The missing names, gathered first so the message lists them together. */
    size_t cap = 256, len = 0;
    char *missing = malloc(cap);
    if (!missing) return aoti_fail("%s: out of memory", name);
    missing[0] = '\0';
    size_t cudart_missing = 0;
    char cudart_names[512] = "";
    for (size_t i = 1; i < nsyms; i++) {
        if (syms[i].st_shndx != SHN_UNDEF || ELF64_ST_BIND(syms[i].st_info) != STB_GLOBAL) continue;
        const char *s = str_at(m + sstr->sh_offset, sstr->sh_size, syms[i].st_name);
        if (!s || !*s) continue;
        if (has_prefix(s, "aoti_torch_") || has_prefix(s, "torch_")) {
            /* CPU packages call aoti_torch_device_type_cuda too; these are CUDA-only. */
            if (!cuda_fn && (has_prefix(s, "aoti_torch_cuda_") || strstr(s, "cuda_stream") ||
                             strstr(s, "cuda_guard")))
                cuda_fn = s;
            dlerror();
            if (dlsym(RTLD_DEFAULT, s)) continue;
            size_t k = strlen(s);
            if (len + k + 2 > cap) {
                while (len + k + 2 > cap) cap *= 2;
                char *grown = realloc(missing, cap);
                if (!grown) {
                    free(missing);
                    return aoti_fail("%s: out of memory", name);
                }
                missing = grown;
            }
            missing[len++] = ' ';
            memcpy(missing + len, s, k + 1);
            len += k;
            r->missing++;
            problems++;
        } else if (r->cuda_package && has_prefix(s, "cuda") && s[4] >= 'A' && s[4] <= 'Z') {
            /* a CUDA runtime function: libshimrt-cudart's (or the process's libcudart) */
            dlerror();
            if (dlsym(RTLD_DEFAULT, s)) continue;
            size_t used = strlen(cudart_names);
            if (used + strlen(s) + 2 < sizeof cudart_names)
                snprintf(cudart_names + used, sizeof cudart_names - used, " %s", s);
            cudart_missing++;
            problems++;
        } else if (has_prefix(s, "_ZN3c10") || has_prefix(s, "_ZNK3c10") ||
                   has_prefix(s, "_ZN2at") || has_prefix(s, "_ZNK2at") ||
                   has_prefix(s, "_ZN5torch") || has_prefix(s, "_ZNK5torch")) {
            if (!first_cxx) first_cxx = s;
            libtorch_syms++;
        }
    }
    if (cuda_fn && r->cuda_package) r->cuda = 1;
    if (cudart_missing)
        aoti_fail_append("\n  it calls %zu CUDA runtime function%s libshimrt-cudart does not "
                         "provide:%s",
                         cudart_missing, cudart_missing == 1 ? "" : "s", cudart_names);
    if (cuda_fn && !r->cuda) {
        aoti_fail_append("\n  it was compiled for CUDA (calls %s); libshimrt runs CPU packages "
                         "only: compile the model on the CPU",
                         cuda_fn);
        r->cuda = 1;
        problems++;
    }
    if (r->missing)
        aoti_fail_append("\n  it calls %zu C shim function%s libshimrt does not export:%s",
                         r->missing, r->missing == 1 ? "" : "s", missing);
    free(missing);
    if (libtorch_syms) {
        aoti_fail_append("\n  it calls %zu libtorch C++ functions (first: %s): compile it with "
                         "inductor_configs={\"aot_inductor.link_libtorch\": False}",
                         libtorch_syms, first_cxx);
        r->libtorch = 1;
        problems++;
    }
    return problems ? 1 : 0;
}

int aoti_check_so(const char *path, const char *shown_name, bool cuda_package,
                  AotiSoReport *report) {
    memset(report, 0, sizeof *report);
    report->cuda_package = cuda_package;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return aoti_fail("cannot open %s", shown_name);
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
        close(fd);
        return aoti_fail("%s is empty", shown_name);
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return aoti_fail("cannot map %s", shown_name);
    int rc = check_mapped(m, (size_t)st.st_size, shown_name, report);
    /* Compiled with -DUSE_MMAP_EXTERNAL (package_constants_on_disk_format="binary_blob"):
     * only then does AOTInductor's model_base.h put this message in the .so. */
    static const char marker[] = "Use AOTInductorModelUpdateConstantsBlob to initialize";
    report->external_weights = memmem(m, (size_t)st.st_size, marker, sizeof marker - 1) != NULL;
    munmap(m, (size_t)st.st_size);
    return rc;
}
