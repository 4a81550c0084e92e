#!/usr/bin/env bash
# The `make` of internal/workflows/run_test.go, put first on PATH for the workflows' run: steps. Every checkout of
# the local run is the same working tree, and `make build` is `go build -o bin/bench ./cmd/bench` and nothing else
# (the test checks the Makefile says so), so every `make build` of the test makes the same bin/bench: the test
# builds it once, in the repository itself, as $FAKE_MAKE_BENCH, and each `make build` copies that binary into its
# checkout's bin/ instead of building it again (a go build in a checkout compiles the whole module again: go's
# build cache keys a package's compile by its directory unless -trimpath, and every checkout's path is new to it,
# while the repository's own packages are compiled already by the test pass). The call's other targets run with
# the real make ($FAKE_MAKE_REAL), in their order; a call without the target build, or with arguments other than
# [-C DIR] TARGET…, runs the real make unchanged. Every call is appended to $FAKE_MAKE_LOG as
#   ran ARGS…                      (the real make ran the whole call)
#   copied DIR/bin/bench           (a build, replaced by the copy)
set -euo pipefail
: "${FAKE_MAKE_REAL:?fake make: FAKE_MAKE_REAL is not set}" "${FAKE_MAKE_BENCH:?fake make: FAKE_MAKE_BENCH is not set}"
: "${FAKE_MAKE_LOG:?fake make: FAKE_MAKE_LOG is not set}"
args=("$@")
dir=.
if [ $# -ge 2 ] && [ "$1" = "-C" ]; then dir=$2; shift 2; fi
build=no
for a in "$@"; do
  case "${a}" in
  -* | *=*) build=no; break ;; # options or variables: not a call this fake understands
  build) build=yes ;;
  esac
done
if [ "${build}" = no ]; then
  printf 'ran %s\n' "${args[*]}" >>"${FAKE_MAKE_LOG}"
  exec "${FAKE_MAKE_REAL}" "${args[@]}"
fi
if [ ! -f "${FAKE_MAKE_BENCH}" ]; then
  echo "fake make: no ${FAKE_MAKE_BENCH} to copy for make build (the test builds it before the first run)" >&2
  exit 2
fi
pending=()
flush() {
  if [ ${#pending[@]} -gt 0 ]; then
    printf 'ran -C %s %s\n' "${dir}" "${pending[*]}" >>"${FAKE_MAKE_LOG}"
    "${FAKE_MAKE_REAL}" -C "${dir}" "${pending[@]}"
    pending=()
  fi
}
for a in "$@"; do
  if [ "${a}" = build ]; then
    flush
    mkdir -p "${dir}/bin"
    cp "${FAKE_MAKE_BENCH}" "${dir}/bin/bench"
    printf 'copied %s/bin/bench\n' "${dir}" >>"${FAKE_MAKE_LOG}"
  else
    pending+=("${a}")
  fi
done
flush
