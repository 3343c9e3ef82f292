#!/bin/sh
# Regenerates api/api/vsm-api-baseline.jar, the API that japicmp (api/pom.xml) compares the
# built API against, from a commit (default HEAD): the classes of api/src/main/java as that
# commit has them, compiled (Java 17) against the SPI and the engine of the same commit, put in
# a jar with fixed entry times. Run it from anywhere in the checkout when an API change is meant
# to be released:
#   api/api/update-baseline.sh [<commit>]
set -eu
commit=${1:-HEAD}
top=$(git rev-parse --show-toplevel)
rev=$(git -C "$top" rev-parse --verify "$commit^{commit}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
git -C "$top" archive "$rev" | tar -x -C "$tmp"
# the API and what it compiles against, built from that commit (no tests, nothing installed)
mvn -B -q -f "$tmp/pom.xml" compile -pl api -am -Dspotbugs.skip=true -Dspotless.check.skip=true
printf 'Implementation-Title: vsm-api baseline\nImplementation-Version: %s\n' "$rev" > "$tmp/manifest"
jar --create --file "$tmp/baseline.jar" --manifest "$tmp/manifest" \
    --date 2000-01-01T00:00:00Z -C "$tmp/api/target/classes" dev
mv "$tmp/baseline.jar" "$top/api/api/vsm-api-baseline.jar"
echo "api/api/vsm-api-baseline.jar: the API of $rev"
