#!/usr/bin/env bash
# The fake `gh` of internal/workflows/run_test.go, put first on PATH for the workflows' run: steps. It serves the
# three uses the workflows make of the GitHub CLI, from the state in $FAKE_GH_DIR, and refuses anything else
# (exit 2), so a workflow that starts calling gh differently fails the test until this fake learns it:
#   gh run list --repo R --workflow nightly.yml --limit 20 --json databaseId,conclusion --jq '<the filter below>'
#       prints the id of the newest run of nightly.yml whose conclusion is success, from $FAKE_GH_DIR/runs.txt
#       (lines "ID CONCLUSION WORKFLOW", oldest first), or nothing (what gh's jq filter prints for none);
#   gh run download ID --repo R --name NAME --dir DIR
#       copies the artifact $FAKE_GH_DIR/artifacts/ID/NAME into DIR (exit 1, as gh, when there is none);
#   gh pr comment NUMBER --repo R --body-file FILE
#       records the body as $FAKE_GH_DIR/pr-NUMBER-comment.md.
# Every call is appended to $FAKE_GH_DIR/calls.log. The argument forms are those of gh 2.23 (Debian bookworm's
# package `gh`; its `gh run list` has no --status, https://github.com/cli/cli/issues/7235 added it later).
set -euo pipefail
: "${FAKE_GH_DIR:?fake gh: FAKE_GH_DIR is not set}"
printf '%s\n' "$*" >>"${FAKE_GH_DIR}/calls.log"
if [ -z "${GH_TOKEN:-}" ]; then
  echo "fake gh: GH_TOKEN is not set (gh needs it on a runner: the step's env must pass github.token)" >&2
  exit 4
fi
unsupported() { echo "fake gh: unsupported call: gh $*" >&2; exit 2; }
# opt NAME ARGS...: the value after --NAME in ARGS (each option once), else unsupported.
opt() {
  local name=$1; shift
  while [ $# -gt 0 ]; do
    if [ "$1" = "--${name}" ] && [ $# -ge 2 ]; then printf '%s' "$2"; return 0; fi
    shift
  done
  return 1
}
cmd="${1:-} ${2:-}"
case "${cmd}" in
"run list")
  shift 2
  filter='[.[] | select(.conclusion == "success")][0].databaseId // empty'
  want=(--repo "${GITHUB_REPOSITORY}" --workflow nightly.yml --limit 20 --json databaseId,conclusion --jq "${filter}")
  [ "$*" = "${want[*]}" ] || unsupported run list "$@"
  if [ -f "${FAKE_GH_DIR}/runs.txt" ]; then
    tac "${FAKE_GH_DIR}/runs.txt" | awk '$2 == "success" && $3 == "nightly.yml" { print $1; exit }'
  fi
  ;;
"run download")
  id="${3:-}"; shift 3 || unsupported run download
  [ $# -eq 6 ] || unsupported run download "${id}" "$@"
  repo=$(opt repo "$@") && name=$(opt name "$@") && dir=$(opt dir "$@") || unsupported run download "${id}" "$@"
  [ "${repo}" = "${GITHUB_REPOSITORY}" ] || unsupported run download "${id}" "$@"
  src="${FAKE_GH_DIR}/artifacts/${id}/${name}"
  if [ ! -d "${src}" ]; then echo "no valid artifacts found to download" >&2; exit 1; fi
  mkdir -p "${dir}"
  cp -a "${src}/." "${dir}/"
  ;;
"pr comment")
  num="${3:-}"; shift 3 || unsupported pr comment
  [ $# -eq 4 ] || unsupported pr comment "${num}" "$@"
  repo=$(opt repo "$@") && file=$(opt body-file "$@") || unsupported pr comment "${num}" "$@"
  [ "${repo}" = "${GITHUB_REPOSITORY}" ] || unsupported pr comment "${num}" "$@"
  cp "${file}" "${FAKE_GH_DIR}/pr-${num}-comment.md"
  ;;
*)
  unsupported "$@"
  ;;
esac
