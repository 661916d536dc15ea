"""tests/torch/fallback_ops_to_yaml.py FALLBACK_OPS_PY: prints PyTorch's op list
(torchgen/aoti/fallback_ops.py: inductor_fallback_ops, aten_shimified_ops) in the shape of
shimgen's shim_ops.yaml. A version keeps its own `since` (v2: {new_args: [...], since: "2.12"}).
Test-side only: it reads the file as Python data (ast.literal_eval), imports nothing."""
import ast
import re
import sys


def since(v):
    m = re.fullmatch(r"TORCH_VERSION_(\d+)_(\d+)_0", v)
    if not m:
        sys.exit("fallback_ops_to_yaml: unexpected since %r" % v)
    return '"%s.%s"' % (m.group(1), m.group(2))


def lists(path):
    tree = ast.parse(open(path).read(), path)
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and node.value is not None:
                out[target.id] = ast.literal_eval(node.value)
    return out


def value(info):
    parts = []
    for k, v in info.items():
        if k == "since":
            parts.append("since: " + since(v))
        elif re.fullmatch(r"v\d+", k):
            if isinstance(v, list):
                parts.append("%s: [%s]" % (k, ", ".join(v)))
            else:
                inner = ["new_args: [%s]" % ", ".join(v["new_args"])]
                if "since" in v:
                    inner.append("since: " + since(v["since"]))
                parts.append("%s: {%s}" % (k, ", ".join(inner)))
        else:
            sys.exit("fallback_ops_to_yaml: unexpected key %r" % k)
    return "{" + ", ".join(parts) + "}"


def main():
    data = lists(sys.argv[1])
    print("# converted from %s by tests/torch/fallback_ops_to_yaml.py" % sys.argv[1])
    for section, name in (("fallback_ops", "inductor_fallback_ops"),
                          ("aten_ops", "aten_shimified_ops")):
        print(section + ":")
        for key, info in data[name].items():
            print("  %s: %s" % (key, value(info)))


main()
