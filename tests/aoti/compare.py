"""tests/aoti/compare.py LIST: for each line "NAME GOT_DIR REF_DIR RTOL ATOL NOUT" of LIST,
compares GOT_DIR/o<i>.npy (shimrt-run's outputs) with REF_DIR/out<i>.npy (PyTorch eager's)
with torch.testing.assert_close (dtype, shape, values within rtol/atol). Prints one line
per model; exit 1 if any differs."""
import sys

import numpy as np
import torch

bad = 0
with open(sys.argv[1]) as f:
    for line in f:
        name, got, ref, rtol, atol, nout = line.split()
        try:
            for i in range(int(nout)):
                a = torch.from_numpy(np.load(f"{got}/o{i}.npy"))
                b = torch.from_numpy(np.load(f"{ref}/out{i}.npy"))
                torch.testing.assert_close(a, b, rtol=float(rtol), atol=float(atol),
                                           equal_nan=True, msg=lambda m: f"output {i}: {m}")
            print(f"ok: {name}: shimrt-run's {nout} output(s) match eager (rtol {rtol}, atol {atol})")
        except (AssertionError, OSError, ValueError) as e:
            print(f"FAIL: {name}: {e}")
            bad = 1
sys.exit(bad)
