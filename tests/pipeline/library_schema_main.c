/* tests/pipeline/library_schema_main.c: aoti_torch_library_def takes a schema as PyTorch's
 * parser does (issue 17: torchaudio writes `forced_align(Tensor log_probs,Tensor targets,
 * ...)`), through the generator's schema parser that libshimrt links. Each op is defined
 * twice, once as spelled in the wild (ns `loose`) and once canonically (ns `canon`); the
 * two schemas the dispatcher keeps must be the same text but for the namespace. */
#include <stdio.h>
#include <string.h>

#include <shimrt/shimrt.h>

static const char *const kPairs[][2] = {
    {"forced_align(Tensor log_probs,Tensor targets,Tensor input_lengths,Tensor target_lengths,"
     "int blank)->(Tensor, Tensor)",
     "forced_align(Tensor log_probs, Tensor targets, Tensor input_lengths, "
     "Tensor target_lengths, int blank) -> (Tensor, Tensor)"},
    {"lfilter_core_loop(Tensor input_signal_windows,Tensor a_coeff_flipped,Tensor(a!) "
     "padded_output_waveform)->()",
     "lfilter_core_loop(Tensor input_signal_windows, Tensor a_coeff_flipped, Tensor(a!) "
     "padded_output_waveform) -> ()"},
    {"f.ov( Tensor x ,\n *, int[2] k = [ 1 , 2 ] )  ->  ( Tensor )",
     "f.ov(Tensor x, *, int[2] k=[1,2]) -> Tensor"},
};

int main(void) {
    TorchLibraryHandle loose = NULL, canon = NULL;
    if (aoti_torch_library_init_def("loose", __FILE__, __LINE__, &loose) != AOTI_TORCH_SUCCESS ||
        aoti_torch_library_init_def("canon", __FILE__, __LINE__, &canon) != AOTI_TORCH_SUCCESS) {
        puts("FAIL: init_def");
        return 1;
    }
    int bad = 0;
    for (size_t i = 0; i < sizeof kPairs / sizeof *kPairs; i++) {
        const char *sl = NULL, *sc = NULL;
        ShimrtOpHandle ol = NULL, oc = NULL;
        char name[64];
        size_t n = strcspn(kPairs[i][1], ".(");
        snprintf(name, sizeof name, "%.*s", (int)n, kPairs[i][1]);
        const char *ov = kPairs[i][1][n] == '.' ? "ov" : "";
        char ln[80], cn[80];
        snprintf(ln, sizeof ln, "loose::%s", name);
        snprintf(cn, sizeof cn, "canon::%s", name);
        if (aoti_torch_library_def(loose, kPairs[i][0]) != AOTI_TORCH_SUCCESS ||
            aoti_torch_library_def(canon, kPairs[i][1]) != AOTI_TORCH_SUCCESS ||
            shimrt_op_find(ln, ov, &ol) != AOTI_TORCH_SUCCESS ||
            shimrt_op_find(cn, ov, &oc) != AOTI_TORCH_SUCCESS ||
            shimrt_op_schema(ol, &sl) != AOTI_TORCH_SUCCESS ||
            shimrt_op_schema(oc, &sc) != AOTI_TORCH_SUCCESS) {
            printf("FAIL: %s: refused\n", kPairs[i][0]);
            bad = 1;
            continue;
        }
        const char *bl = strstr(sl, "::"), *bc = strstr(sc, "::");
        if (!bl || !bc || strcmp(bl, bc) != 0) {
            printf("FAIL: '%s' kept as '%s', canonical '%s'\n", kPairs[i][0], sl, sc);
            bad = 1;
        } else {
            printf("ok: %s\n", sl);
        }
    }
    aoti_torch_delete_library_object(loose);
    aoti_torch_delete_library_object(canon);
    return bad;
}
