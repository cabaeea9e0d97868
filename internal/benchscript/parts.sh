# Parts of the realistic scripts the cost benchmarks build (20, 60, 200
# lines): each part below a "#--" line is one whole construct; {{i}}
# becomes the part's round, so a long script does not repeat itself
# word for word. Nothing here is ever run.
#--
set -euo pipefail
#--
ROOT="$(cd "$(dirname "$0")" && pwd)"
BUILD_DIR="$ROOT/build{{i}}"
LOG=build{{i}}.log
#--
log_{{i}}() {
  printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >> "$LOG"
}
#--
mkdir -p "$BUILD_DIR" dist/{{i}} tmp
#--
for f in src/*.go; do
  gofmt -l "$f" | tee -a lint{{i}}.txt
done
#--
case "${1:-build}" in
  build) go build -o "$BUILD_DIR/app" ./cmd/app ;;
  test) go test ./... 2>&1 | tee test{{i}}.log ;;
  clean) rm -rf "$BUILD_DIR" dist ;;
  *) echo "usage: $0 build|test|clean" >&2; exit 2 ;;
esac
#--
if [ -f package.json ]; then
  npm ci --no-audit
  npm test -- --reporter=dot
else
  echo "no package.json" >&2
fi
#--
count=$(find src -name '*.py' -type f | wc -l)
echo "python files: $count"
#--
python3 -c 'import json,sys; d=json.load(open("package.json")); print(d["version"])'
#--
node -e 'const fs=require("fs"); console.log(Object.keys(JSON.parse(fs.readFileSync("package.json","utf8")).dependencies||{}).length)'
#--
cat > "$BUILD_DIR/config{{i}}.ini" <<EOF
[app]
name = demo{{i}}
root = $ROOT
EOF
#--
grep -rn 'TODO' src/ | sort | uniq -c | sort -rn | head -20
#--
while read -r line; do
  name=${line%%=*}
  value=${line#*=}
  echo "export $name=\"$value\"" >> env{{i}}.sh
done < settings{{i}}.conf
#--
tar czf "dist/release{{i}}.tar.gz" -C "$BUILD_DIR" .
sha256sum "dist/release{{i}}.tar.gz" > "dist/release{{i}}.sha256"
#--
git log --oneline -n 10 | awk '{print $1}' | xargs -n1 git show --stat
#--
for i in $(seq 1 5); do
  sed -i "s/version{{i}}=.*/version{{i}}=$i/" config/app.conf
done
#--
python3 - <<'PY'
import os
for name in sorted(os.listdir("src")):
    print(name)
PY
#--
test -d node_modules || npm install
#--
[[ -n "${CI:-}" ]] && echo "running in CI" || echo "local run"
#--
find . -name '*.tmp' -mtime +3 -print0 | xargs -0 rm -f
#--
cp -r assets "$BUILD_DIR/assets{{i}}"
ls -la "$BUILD_DIR"
#--
diff -u expected{{i}}.txt actual{{i}}.txt || true
#--
jq -r '.scripts | keys[]' package.json | while read -r s; do echo "script: $s"; done
