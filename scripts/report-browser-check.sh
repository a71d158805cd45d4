#!/usr/bin/env bash
# Renders a lab report (report.html) in headless Chromium and fails on a
# layout error: an element that reaches past the right edge of the page
# (a table or chart wider than the window), or an image that does not
# load. Usage: scripts/report-browser-check.sh REPORT.html [WIDTH] [SHOT.png]
# WIDTH is the window width in pixels (default 1200; try 700 for a narrow
# window); SHOT, if given, receives a screenshot of the first screen.
# Needs Debian's chromium (`apt-get install chromium`); exit 2 without it.
set -euo pipefail
report=${1:?usage: $0 REPORT.html [WIDTH] [SHOT.png]}
width=${2:-1200}
shot=${3:-}
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
  echo "report-browser-check: no chromium on PATH (apt-get install chromium)" >&2
  exit 2
fi
[ -f "$report" ] || { echo "report-browser-check: $report: no such file" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$tmp/profile"
       --window-size="$width,1400")
# The probe: after load, list what reaches past the page's right edge and
# the images that failed, as an attribute of <body> that --dump-dom prints.
probe='<script>window.addEventListener("load",()=>{const w=document.documentElement.clientWidth;const wide=[];for(const e of document.querySelectorAll("body *")){if(e.closest(".tbl"))continue;const r=e.getBoundingClientRect();if(r.right>w+1)wide.push(e.tagName.toLowerCase()+(e.className&&e.className.baseVal===undefined?"."+e.className:"")+" to "+Math.round(r.right)+"px");}const broken=[...document.images].filter(i=>!(i.complete&&i.naturalWidth>0)).map(i=>i.alt||i.src.slice(0,40));document.body.setAttribute("data-check","wide="+wide.slice(0,8).join("; ")+"|broken="+broken.join("; "));});</script>'
python3 - "$report" "$tmp/probe.html" "$probe" <<'PY'
import sys
src, dst, probe = sys.argv[1:4]
s = open(src, encoding="utf-8").read()
open(dst, "w", encoding="utf-8").write(s.replace("</body>", probe + "</body>"))
PY
# Relative chart paths resolve beside the report.
cp -r "$(dirname "$report")/." "$tmp/" 2>/dev/null || true
mv "$tmp/probe.html" "$tmp/__probe.html" 2>/dev/null || true
result=$(timeout 90 "$chrome" "${flags[@]}" --virtual-time-budget=5000 --dump-dom "file://$tmp/__probe.html" 2>/dev/null \
  | grep -o 'data-check="[^"]*"' | head -1 || true)
if [ -z "$result" ]; then
  echo "report-browser-check: FAIL: $report did not render (no probe result)" >&2
  exit 1
fi
if [ -n "$shot" ]; then
  timeout 90 "$chrome" "${flags[@]}" --screenshot="$shot" "file://$(cd "$(dirname "$report")" && pwd)/$(basename "$report")" >/dev/null 2>&1 || true
fi
wide=$(sed -e 's/^data-check="wide=//' -e 's/|broken=.*//' <<<"$result")
broken=$(sed -e 's/.*|broken=//' -e 's/"$//' <<<"$result")
if [ -n "$wide" ] || [ -n "$broken" ]; then
  [ -n "$wide" ] && echo "report-browser-check: FAIL: wider than the ${width}px page: $wide" >&2
  [ -n "$broken" ] && echo "report-browser-check: FAIL: images that did not load: $broken" >&2
  exit 1
fi
echo "report-browser-check: ok: $report at ${width}px (nothing past the page's edge, every image loaded)"
