#!/usr/bin/env sh
# Build kruleset-kr-VERSION.vsix here (or at the path given): the grammar of
# editors/ is copied in (one copy is kept, in editors/), the client library
# installed from npm, then packaged by vsce.  Needs node and npm (npm's
# registry for the first run; node_modules is kept for the next).
set -eu
out="${1:-}"
[ -z "$out" ] || case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
cd "$(dirname "$0")"
[ -n "$out" ] || out="kruleset-kr-$(node -p 'require("./package.json").version').vsix"
mkdir -p syntaxes
cp ../kr.tmLanguage.json syntaxes/kr.tmLanguage.json
# The versions are package-lock.json's; an up-to-date node_modules is kept.
npm install --no-audit --no-fund --loglevel=error
npx --no-install vsce package --skip-license --allow-missing-repository --out "$out"
