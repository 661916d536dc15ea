"""tests/aoti/bad_pt2.py OUT_DIR ZOO_DIR: writes the broken packages tests/torch/aoti_zoo.sh
feeds to shimrt-run, each made from a good zoo package:

  truncated.pt2   the first half of mlp/model.pt2
  notzip.pt2      text;  empty.pt2: zero bytes
  aarch64.pt2     mlp's .so with its ELF machine set to aarch64 (183)
  elf32.pt2       mlp's .so with its ELF class set to 32-bit
  badso.pt2       mlp's .so cut to 100 bytes (an ELF header, no section table)
  no_blob.pt2     mlp_blob without its *_weights.blob (the constants are missing)
  unknown_fn.pt2  mlp's .so calling aoti_torch_get_numex (a renamed dynamic symbol)
  cuda.pt2        mlp's metadata saying it was compiled for "cuda" (no GPU here)
  xpu.pt2         the same for "xpu" (a device libshimrt has no backend for)
  cuda_so.pt2     mlp's .so needing libcudart.so (its DT_NEEDED libgcc_s.so.1 renamed)
  no_model.pt2    a zip with no data/aotinductor/ folder
  wrong_shape.npy an int64 (4, 5) array (int64_index takes (3, 5))
  fortran.npy     int64_index's first input in Fortran order (same values)
  huge.npy        a header claiming shape (2**40, 2**40); short.npy: 10 of 4000 data bytes
  big_endian.npy  '>f4' data
"""
import os
import sys
import zipfile

import numpy as np


def rewrite(src, dst, change):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = change(info.filename, zin.read(info.filename))
            if data is not None:
                zout.writestr(info, data)


def main():
    out, zoo = sys.argv[1], sys.argv[2]
    mlp = os.path.join(zoo, "mlp", "model.pt2")
    blob = os.path.join(zoo, "mlp_blob", "model.pt2")
    with open(mlp, "rb") as f:
        raw = f.read()
    with open(os.path.join(out, "truncated.pt2"), "wb") as f:
        f.write(raw[: len(raw) // 2])
    with open(os.path.join(out, "notzip.pt2"), "w") as f:
        f.write("not a zip archive\n")
    open(os.path.join(out, "empty.pt2"), "wb").close()

    def so_patch(fn):
        return lambda name, data: fn(data) if name.endswith(".so") else data

    rewrite(mlp, os.path.join(out, "aarch64.pt2"),
            so_patch(lambda d: d[:18] + (183).to_bytes(2, "little") + d[20:]))
    rewrite(mlp, os.path.join(out, "elf32.pt2"), so_patch(lambda d: d[:4] + b"\x01" + d[5:]))
    rewrite(mlp, os.path.join(out, "badso.pt2"), so_patch(lambda d: d[:100]))
    rewrite(blob, os.path.join(out, "no_blob.pt2"),
            lambda name, data: None if name.endswith("_weights.blob") else data)

    def rename(d):
        old, new = b"\0aoti_torch_get_numel\0", b"\0aoti_torch_get_numex\0"
        assert old in d
        return d.replace(old, new)

    rewrite(mlp, os.path.join(out, "unknown_fn.pt2"), so_patch(rename))
    rewrite(mlp, os.path.join(out, "cuda.pt2"),
            lambda name, data: data.replace(b'"AOTI_DEVICE_KEY": "cpu"', b'"AOTI_DEVICE_KEY": "cuda"')
            if name.endswith("wrapper_metadata.json") else data)
    rewrite(mlp, os.path.join(out, "xpu.pt2"),
            lambda name, data: data.replace(b'"AOTI_DEVICE_KEY": "cpu"', b'"AOTI_DEVICE_KEY": "xpu"')
            if name.endswith("wrapper_metadata.json") else data)
    def cudart(d):
        old, new = b"\0libgcc_s.so.1\0", b"\0libcudart.so\0\0"
        assert old in d
        return d.replace(old, new)

    rewrite(mlp, os.path.join(out, "cuda_so.pt2"), so_patch(cudart))
    with zipfile.ZipFile(os.path.join(out, "no_model.pt2"), "w") as z:
        z.writestr("model/archive_format", "pt2")
    np.save(os.path.join(out, "wrong_shape.npy"), np.zeros((4, 5), dtype=np.int64))
    ids = np.load(os.path.join(zoo, "int64_index", "in0.npy"))
    np.save(os.path.join(out, "fortran.npy"), np.asfortranarray(ids))
    np.save(os.path.join(out, "big_endian.npy"), np.ones(4, dtype=">f4"))

    def raw(name, header, data):
        header = header + " " * (-(10 + len(header) + 1) % 64) + "\n"
        with open(os.path.join(out, name), "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + data)

    raw("huge.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }", b"")
    raw("short.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1000,), }", b"\0" * 10)


if __name__ == "__main__":
    main()
