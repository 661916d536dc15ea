"""myops: importing the package loads its operator library into PyTorch, after which the
ops are torch.ops.myops.* (the library registers them when it is loaded)."""
import glob
import os

import torch

torch.ops.load_library(glob.glob(os.path.join(os.path.dirname(__file__), "_C*.so"))[0])
