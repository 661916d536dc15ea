"""examples/myops/setup.py: ships myops as a wheel (see README.md, "Ship it in a wheel").

Run `shimgen --target=torch schemas -o generated` first (or vendor generated/ in your
source tree); then `pip wheel .` or `python setup.py build_ext --inplace`. The extension
is a plain shared library (no Python.h, no module init): myops/__init__.py loads it with
torch.ops.load_library, and it links only with libtorch."""
import glob
import os

import torch
from setuptools import Extension, setup

TORCH_LIB = os.path.join(os.path.dirname(torch.__file__), "lib")
GEN = "generated"

setup(
    name="myops",
    version="0.1.0",
    packages=["myops"],
    install_requires=["torch>=2.10"],
    ext_modules=[
        Extension(
            "myops._C",
            sources=sorted(glob.glob(os.path.join(GEN, "*.c")))
            + [os.path.join(GEN, "shimgen_torch_boundary.cc"), "myops_kernel.c"],
            include_dirs=[GEN],
            library_dirs=[TORCH_LIB],
            libraries=["torch", "torch_cpu", "c10", "stdc++"],
            extra_compile_args=["-fvisibility=hidden"],
        )
    ],
)
