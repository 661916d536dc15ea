# tests/abi/decls.awk: prints "name group" for every function a PyTorch C header declares
# with AOTI_TORCH_EXPORT. group is cuda or mps inside `#ifdef USE_CUDA`/`USE_MPS`, else cpu.
# Comments are removed first; a declaration ends at its `;` (macro bodies are skipped).
BEGIN { group = "cpu"; incomment = 0 }
{
  line = $0
  if (incomment) { if (sub(/.*\*\//, "", line)) incomment = 0; else next }
  gsub(/\/\*[^*]*\*+([^\/*][^*]*\*+)*\//, "", line)
  if (match(line, /\/\*/)) { line = substr(line, 1, RSTART - 1); incomment = 1 }
  sub(/\/\/.*/, "", line)
}
line ~ /^#[ \t]*ifdef[ \t]+USE_CUDA/ { group = "cuda"; next }
line ~ /^#[ \t]*ifdef[ \t]+USE_MPS/  { group = "mps"; next }
line ~ /^#[ \t]*endif/ && group != "cpu" && $0 ~ /USE_(CUDA|MPS)/ { group = "cpu"; next }
line ~ /^#/ { if (line ~ /\\$/) inmacro = 1; next }
inmacro { if (line !~ /\\$/) inmacro = 0; next }
{
  buf = buf " " line
  if (line ~ /;/) {
    if (buf ~ /AOTI_TORCH_EXPORT/) {
      s = buf; sub(/\(.*/, "", s); n = split(s, w, /[ \t*]+/)
      name = w[n]; if (name == "") name = w[n - 1]
      if (name ~ /^[A-Za-z_][A-Za-z0-9_]*$/) print name, group
    }
    buf = ""
  }
}
