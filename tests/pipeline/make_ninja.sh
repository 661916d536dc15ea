#!/bin/sh
# tests/pipeline/make_ninja.sh: shimgen in a make and in a ninja project with --depfile
# (issue 22, item 6; docs/cli.md, "In a build"). After an input is touched, shimgen runs
# once and the next build has nothing to do: make through --stamp (the depfile's target is
# the stamp, which every run rewrites, so write-if-changed outputs keep their times), ninja
# through restat. What depends on an unchanged output is not rebuilt.
set -u
SHIMGEN=${SHIMGEN:-build/shimgen}
case $SHIMGEN in /*) ;; *) SHIMGEN=$PWD/$SHIMGEN ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/shimgen-pipe.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fail() { echo "make_ninja: FAIL: $*" >&2; exit 1; }
mkdir "$T/p"
cp tests/fixtures/emit_abi/native_functions.yaml tests/fixtures/emit_abi/shim_ops.yaml "$T/p/"
cd "$T/p" || exit 1
# Make's and ninja's file times: a touch must be seen as newer than the last run.
tick() { sleep 1; }

# The inner make is its own build: not a sub-make of `make check` (its flags, jobserver).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES 2> /dev/null || true
if command -v make > /dev/null 2>&1; then
  cat > Makefile <<MK
all: use.txt
gen.stamp:
	@echo run >> runs.log
	$SHIMGEN -q --backends cpu . -o gen --depfile gen.d --stamp gen.stamp
-include gen.d
gen/c_shim_cpu.h: gen.stamp ;
use.txt: gen/c_shim_cpu.h
	@echo use >> uses.log
	cp gen/c_shim_cpu.h use.txt
MK
  make -s > /dev/null || fail "make: first build"
  make -s > /dev/null || fail "make: second build"
  [ "$(wc -l < runs.log)" -eq 1 ] || fail "make: shimgen ran $(wc -l < runs.log) times on an unchanged input"
  tick; touch native_functions.yaml
  make -s > /dev/null || fail "make: build after touch"
  for i in 1 2 3; do make -s > /dev/null || fail "make: build $i after the touch"; done
  [ "$(wc -l < runs.log)" -eq 2 ] || fail "make: shimgen ran $(wc -l < runs.log) times, expected 2 (once after the touch)"
  [ "$(wc -l < uses.log)" -eq 1 ] || fail "make: an unchanged output rebuilt what uses it"
  grep -q '^gen.stamp:' gen.d || fail "make: the depfile's target is not the stamp"
  tick; sed -i 's/int steps)/int steps, int extra=0)/' native_functions.yaml
  make -s > /dev/null || fail "make: build after a change"
  make -s > /dev/null || fail "make: build after the change"
  [ "$(wc -l < runs.log)" -eq 3 ] && [ "$(wc -l < uses.log)" -eq 2 ] ||
    fail "make: a real change did not rebuild once (runs $(wc -l < runs.log), uses $(wc -l < uses.log))"
  echo "ok: make with --depfile --stamp: one shimgen run per input change, then nothing to do"
  rm -rf gen gen.d gen.stamp runs.log uses.log use.txt Makefile
else
  echo "skip: no make"
fi

if command -v ninja > /dev/null 2>&1; then
  cat > build.ninja <<NJ
rule shimgen
  command = echo run >> runs.log && $SHIMGEN -q --backends cpu . -o gen --depfile gen.d
  depfile = gen.d
  deps = gcc
  restat = 1
rule cp
  command = echo use >> uses.log && cp \$in \$out
build gen/c_shim_cpu.h gen/c_shim_cpu.c: shimgen
build use.txt: cp gen/c_shim_cpu.h
NJ
  ninja > /dev/null || fail "ninja: first build"
  tick; touch native_functions.yaml
  ninja > /dev/null || fail "ninja: build after touch"
  ninja -n -d explain 2> explain.log | grep -q 'no work to do' ||
    { cat explain.log >&2; fail "ninja: work left after the rebuild"; }
  [ "$(wc -l < runs.log)" -eq 2 ] || fail "ninja: shimgen ran $(wc -l < runs.log) times, expected 2"
  [ "$(wc -l < uses.log)" -eq 1 ] || fail "ninja: an unchanged output rebuilt what uses it"
  echo "ok: ninja with --depfile and restat: one shimgen run per input change, then no work"
else
  echo "skip: no ninja"
fi
