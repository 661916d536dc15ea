#!/bin/sh
# tests/torch/layout_oracle.sh: tests/torch/layout_client.c (one C client of the stable C
# ABI) built once against libshimrt and once against PyTorch 2.15's libtorch_cpu; the two
# must print the same lines: the sizes, strides and values ops return for inputs of many
# layouts (PyTorch's output layout rules) and resize_'s order of resize and checks
# (tests/torch/client_oracle.inc; ORACLE_KEEP=DIR keeps both outputs).
set -eu
. tests/torch/client_oracle.inc
client_oracle layout_oracle tests/torch/layout_client.c
