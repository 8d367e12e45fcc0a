#!/usr/bin/env bash
# Builds .build/deb/geopipe_VERSION_ARCH.deb from `make install` into a staging tree. Depends
# names the Debian packages that hold the shared libraries the binary links (found with ldd
# and dpkg -S), so apt installs GEOS, PROJ, SQLite, libyaml, cairo, jemalloc and zlib with it.
# Usage: Scripts/make-deb.sh (after `make static`; `make deb` runs both)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/geopipe
out=.build/deb
root=$out/root
rm -rf "$root"
mkdir -p "$root"
make --no-print-directory install DESTDIR="$PWD/$root" PREFIX=/usr >/dev/null

version=$("$bin" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)

# The package of every shared library the binary names (NEEDED), with the version installed
# here as the minimum.
depends=()
for name in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  lib=$(ldd "$bin" | awk -v n="$name" '$1 == n && $3 ~ /^\// {print $3}')
  if [ -z "$lib" ]; then
    lib=$(ldd "$bin" | awk -v n="$name" '$1 ~ n {print $1}' | head -1)
  fi
  owner=""
  for candidate in "$lib" "$(readlink -f "$lib")" "/usr$lib" "/usr$(readlink -f "$lib")"; do
    owner=$(dpkg -S "$candidate" 2>/dev/null | head -1) && [ -n "$owner" ] && break
  done
  if [ -z "$owner" ]; then
    echo "error: no Debian package holds $name ($lib)" >&2
    exit 1
  fi
  package=${owner%%:*}
  depends+=("${package%%,*}")
done
# proj.db comes from proj-data, which libproj needs at run time.
depends+=(proj-data)
depends_line=$(
  for p in $(printf '%s\n' "${depends[@]}" | sort -u); do
    v=$(dpkg-query -W -f='${Version}' "$p" | sed 's/-[^-]*$//')
    printf '%s (>= %s)\n' "$p" "$v"
  done | paste -sd, - | sed 's/,/, /g'
)

install -d "$root/DEBIAN" "$root/usr/share/doc/geopipe"
install -m 644 LICENSE "$root/usr/share/doc/geopipe/copyright"
size=$(du -sk "$root/usr" | awk '{print $1}')
cat > "$root/DEBIAN/control" <<CONTROL
Package: geopipe
Version: $version
Section: science
Priority: optional
Architecture: $arch
Installed-Size: $size
Depends: $depends_line
Maintainer: geopipe developers <geopipe@users.noreply.github.com>
Homepage: https://github.com/geopipe/geopipe
Description: geospatial data pipelines on the command line
 Read, filter, geocode, cluster, simplify, reproject, validate and write GeoJSON, CSV,
 KML and vector tiles (MBTiles, PMTiles), and render static maps. Ships the GeoNames
 cities15000 files for the default gazetteer (CC BY 4.0, attribution: GeoNames,
 https://www.geonames.org/) and the Natural Earth basemap (public domain).
CONTROL
deb=$out/geopipe_${version}_${arch}.deb
dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
echo "$deb"
