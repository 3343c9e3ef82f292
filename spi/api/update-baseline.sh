#!/bin/sh
# Regenerates spi/api/vsm-spi-baseline.jar, the SPI that japicmp (spi/pom.xml) compares the
# built SPI against, from a commit (default HEAD): the classes of spi/src/main/java as that
# commit has them, compiled for Java 17 with fixed entry times (the same commit gives the same
# jar). Run it from anywhere in the checkout when an SPI change is meant to be released:
#   spi/api/update-baseline.sh [<commit>]
set -eu
commit=${1:-HEAD}
top=$(git rev-parse --show-toplevel)
rev=$(git -C "$top" rev-parse --verify "$commit^{commit}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
git -C "$top" archive "$rev" spi/src/main/java | tar -x -C "$tmp"
find "$tmp/spi/src/main/java" -name '*.java' > "$tmp/sources"
mkdir "$tmp/classes"
javac --release 17 -nowarn -d "$tmp/classes" @"$tmp/sources"
printf 'Implementation-Title: vsm-spi baseline\nImplementation-Version: %s\n' "$rev" > "$tmp/manifest"
jar --create --file "$tmp/baseline.jar" --manifest "$tmp/manifest" \
    --date 2000-01-01T00:00:00Z -C "$tmp/classes" .
mv "$tmp/baseline.jar" "$top/spi/api/vsm-spi-baseline.jar"
echo "spi/api/vsm-spi-baseline.jar: the SPI of $rev"
