# tests/scripts/emit_oracle.awk: an independent reading of docs/shim-rules.md's backend choice,
# used by emit_selfcheck.sh to check the headers for every backend. Not a generator: it
# knows only what the rules need (dispatch keys, structured_delegate, structured, ufunc,
# autogen) and prints the C name of every listed op that has a kernel for KEY.
#   awk -v KEY=XPU -v BACKEND=xpu -f emit_oracle.awk native_functions.yaml shim_ops.yaml
function flush() {
    if (cur == "") return
    nodisp[cur] = !has_dispatch && delegate == "" && !structured
    deleg[cur] = delegate
    ufunc[cur] = is_ufunc
    cur = ""
}
FNR == 1 { file++ }
file == 1 && /^- func:/ {
    flush()
    s = $0
    sub(/^- func: */, "", s)
    sub(/\(.*/, "", s)
    n = split(s, p, ".")
    cur = "aten." p[1] "." (n > 1 ? p[2] : "default")
    exists[cur] = 1
    has_dispatch = 0; delegate = ""; structured = 0; is_ufunc = 0; in_dispatch = 0
    next
}
file == 1 && /^  [a-z_]+:/ {
    in_dispatch = 0
    if ($1 == "dispatch:") { has_dispatch = 1; in_dispatch = 1 }
    else if ($1 == "structured_delegate:") {
        n = split($2, p, "."); delegate = "aten." p[1] "." (n > 1 ? p[2] : "default")
    }
    else if ($1 == "structured:" && $2 == "True") structured = 1
    else if ($1 == "ufunc_inner_loop:") is_ufunc = 1
    else if ($1 == "autogen:") {
        s = $0; sub(/^  autogen: */, "", s); gsub(/ /, "", s)
        n = split(s, names, ",")
        for (i = 1; i <= n; i++) {
            m = split(names[i], p, ".")
            derived["aten." p[1] "." (m > 1 ? p[2] : "default")] = 1
        }
    }
    next
}
file == 1 && in_dispatch && /^    [A-Za-z]/ {
    s = $0; sub(/^ +/, "", s); sub(/:.*/, "", s); gsub(/ /, "", s)
    n = split(s, keys, ",")
    for (i = 1; i <= n; i++) if (keys[i] !~ /NestedTensor/) disp[cur, keys[i]] = 1
    next
}
file == 2 && /^[a-z_]+:/ { flush(); section = $1; next }
file == 2 && section == "fallback_ops:" && /^  aten\./ {
    op = $1; sub(/:$/, "", op)
    listed[op] = 1
    # A later version of the op (`v2: {new_args: ...}`) is a shim of its own, named _v2.
    rest = $0
    while (match(rest, /[{ ,]v[0-9]+:/)) {
        v = substr(rest, RSTART + 1, RLENGTH - 2)
        versions[op] = versions[op] " " v
        rest = substr(rest, RSTART + RLENGTH)
    }
}
function own(op, key) {
    if ((op, key) in disp) return 1
    if (ufunc[op] && (key == "CPU" || key == "CUDA")) return 1
    return 0
}
END {
    flush()
    for (op in listed) {
        ok = 0
        if (op in derived && !(op in exists)) ok = 1
        else if (own(op, KEY) || (deleg[op] != "" && own(deleg[op], KEY))) ok = 1
        else if ((op, "CompositeExplicitAutograd") in disp) ok = 1
        else if ((op, "CompositeExplicitAutogradNonFunctional") in disp) ok = 1
        else if ((op, "CompositeImplicitAutograd") in disp || nodisp[op]) ok = 1
        if (!ok) continue
        split(op, p, ".")
        name = "aoti_torch_" BACKEND "_" p[2] (p[3] == "default" ? "" : "_" p[3])
        print name
        n = split(versions[op], vs, " ")
        for (i = 1; i <= n; i++) print name "_" vs[i]
    }
}
