#!/bin/sh
# tests/torch/handles_oracle.sh: tests/torch/handles_client.c (one C client of the C shim
# and torch_call_dispatcher) built once against libshimrt and once against PyTorch 2.15's
# libtorch_cpu; the two must print the same lines: handles sharing one tensor (a resize
# of an out= through the dispatcher seen by the caller, assign_tensors, deleting one
# handle), the ops that return self and those that return a new view, meta tensors
# (tests/torch/client_oracle.inc).
set -eu
. tests/torch/client_oracle.inc
client_oracle handles_oracle tests/torch/handles_client.c
