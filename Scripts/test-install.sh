#!/usr/bin/env bash
# Checks geopipe as a user who did not build it gets it: `make install` into a temporary
# prefix, the installed tree copied to another prefix and run from another folder with the
# source tree out of reach (strace shows no file under it is opened), the default gazetteer
# built from the installed GeoNames files, man pages rendered, bash completion loaded; then
# the Debian package from `make deb` unpacked into a scratch root and run the same way.
# Usage: Scripts/test-install.sh (also `make check-install`)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d /tmp/geopipe-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "test-install: FAIL: $*" >&2
  exit 1
}

# Runs an installed binary from $work with a clean environment: no GEOPIPE_DATA, a fresh
# home folder, and (with strace) a record of every file it opens.
run_installed() {
  local bin=$1
  shift
  mkdir -p "$work/home"
  (cd "$work" && env -i PATH=/usr/bin:/bin HOME="$work/home" \
    XDG_DATA_HOME="$work/home/.local/share" "$bin" "$@")
}

check_prefix() {
  local prefix=$1 label=$2
  local bin=$prefix/bin/geopipe
  [ -x "$bin" ] || fail "$label: no $bin"
  if ldd "$bin" | grep -Eq 'swift|/opt/|not found'; then
    ldd "$bin" >&2
    fail "$label: the binary needs libraries outside the system (Swift runtime not static?)"
  fi
  rm -rf "$work/home"
  if command -v strace >/dev/null; then
    (cd "$work" && env -i PATH=/usr/bin:/bin HOME="$work/home" XDG_DATA_HOME="$work/home/.local/share" \
      strace -f -qq -e trace=open,openat,stat,newfstatat,access -o "$work/trace" \
      "$bin" gazetteer build --default -q) || fail "$label: gazetteer build --default failed"
    if grep -F "\"$repo" "$work/trace" | grep -v ENOENT | head -3 | grep -q .; then
      grep -F "\"$repo" "$work/trace" | head -5 >&2
      fail "$label: the installed binary opened files in the source tree"
    fi
  else
    run_installed "$bin" gazetteer build --default -q || fail "$label: gazetteer build failed"
  fi
  [ -s "$work/home/.local/share/geopipe/gazetteer.sqlite" ] ||
    fail "$label: no default gazetteer in the user data folder"
  printf 'name\nMunich\n' > "$work/q.csv"
  run_installed "$bin" read "$work/q.csv" -q > "$work/q.geojsonl" || fail "$label: read failed"
  run_installed "$bin" geocode --query '{name}' -q < "$work/q.geojsonl" > "$work/out.geojsonl" ||
    fail "$label: geocode with the default gazetteer failed"
  grep -q '"coordinates":\[11\.' "$work/out.geojsonl" || fail "$label: Munich not geocoded"
  run_installed "$bin" gazetteer info -q | grep -q "GeoNames" ||
    fail "$label: gazetteer info shows no GeoNames attribution"
  run_installed "$bin" gazetteer info -q | grep -q "^country_areas: 244$" ||
    fail "$label: the default gazetteer has no Natural Earth country polygons"
  [ -f "$prefix/share/geopipe/geonames/README.md" ] || fail "$label: GeoNames licence missing"
  [ -f "$prefix/share/geopipe/naturalearth/ne_110m_countries.geojson.gz" ] ||
    fail "$label: Natural Earth basemap missing"
  for page in "$prefix"/share/man/man1/geopipe*.1; do
    out=$(MANWIDTH=80 man -l "$page" 2>"$work/man.err") || fail "$label: man -l $page failed"
    grep -q "^NAME" <<<"$out" || fail "$label: $page renders no NAME section"
    [ ! -s "$work/man.err" ] || fail "$label: $page: $(cat "$work/man.err")"
  done
  [ -f "$prefix/share/man/man1/geopipe-read.1" ] || fail "$label: no geopipe-read(1)"
  bash -c "source '$prefix/share/bash-completion/completions/geopipe' && complete -p geopipe" \
    | grep -q -- "-F _geopipe geopipe" || fail "$label: bash completion does not load"
  [ -s "$prefix/share/zsh/site-functions/_geopipe" ] || fail "$label: no zsh completion"
  [ -s "$prefix/share/fish/vendor_completions.d/geopipe.fish" ] || fail "$label: no fish completion"
  echo "test-install: $label ok"
}

# make install, then the installed tree moved to a prefix that was never installed to.
make --no-print-directory install PREFIX="$work/p" >/dev/null
cp -a "$work/p" "$work/moved"
rm -rf "$work/p"
check_prefix "$work/moved" "make install"

make --no-print-directory uninstall PREFIX="$work/moved" >/dev/null
left=$(find "$work/moved" -type f | head -3)
[ -z "$left" ] || fail "make uninstall left files: $left"
echo "test-install: make uninstall ok"

# The Debian package, unpacked into a scratch root.
deb=$(Scripts/make-deb.sh)
depends=$(dpkg-deb -f "$deb" Depends)
for package in libgeos-c1v5 libproj libsqlite3 libyaml libcairo2 libjemalloc2 zlib1g; do
  grep -q "$package" <<<"$depends" || fail "the package does not depend on $package: $depends"
done
dpkg-deb -x "$deb" "$work/root"
check_prefix "$work/root/usr" "deb"
