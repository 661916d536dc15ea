"""tests/torch/torchgen_all_ops.py KEY [SHIM_OPS_YAML]: PyTorch's own generator
(torchgen.gen_aoti_c_shim, from the installed wheel) run on every function of its packaged
native_functions.yaml, derived (autogen) ones included, as if every op were in
fallback_ops.py: prints the c_shim_<key>.h torchgen writes for dispatch key KEY, and writes
the same op list as a shim_ops.yaml for shimgen. Used by compat_wheel.sh."""
import os
import sys

import torchgen
from torchgen.gen import get_grouped_native_functions, parse_native_yaml
from torchgen.gen_aoti_c_shim import gen_aoti_c_shim, get_fallback_op_name
from torchgen.model import DispatchKey, NativeFunctionsGroup

d = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native")
parsed = parse_native_yaml(os.path.join(d, "native_functions.yaml"), os.path.join(d, "tags.yaml"))
funcs = parsed.native_functions
# As gen_aoti_c_shim_files: a structured delegate's group, by the delegate's name.
groups = {}
for g in get_grouped_native_functions(funcs):
    if isinstance(g, NativeFunctionsGroup):
        for f in g.functions():
            if f.structured_delegate is not None:
                groups[f.structured_delegate] = g
                break
by_name = {get_fallback_op_name(f): f for f in funcs}
ops = {name: {} for name in by_name}
chosen = tuple(f for _, f in sorted(by_name.items()))
key = DispatchKey.parse(sys.argv[1])
sys.stdout.write(
    gen_aoti_c_shim(chosen, ops, groups, key, parsed.backend_indices, header=True,
                    extend_aoti_c_shim=False))
if len(sys.argv) > 2:
    with open(sys.argv[2], "w") as out:
        out.write("fallback_ops:\n" + "".join(f"  {k}: {{}}\n" for k in sorted(ops)))
