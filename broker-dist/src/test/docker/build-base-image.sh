#!/usr/bin/env bash
# Builds the local Docker image the container system tests run broker nodes in (default tag tandem-base:1).
#
# No image registry is reachable from CI, so nothing is pulled: the root file system is assembled from this
# machine's own Java 17 and C library and loaded with `docker import`.
#   /opt/java      a Java runtime made with jlink from this machine's JDK (java.se plus the jdk.* modules a
#                  broker, its tools and diagnostics use: jcmd, JFR, JMX agent and client, EC crypto, DNS), or,
#                  if this JDK has no jmods, a copy of its java.home without development files
#   /usr/lib/...   the shared libraries that runtime (and the few tools below) link against, found with ldd
#   /bin/sh etc.   sh, cat, ls, getent, ps, kill, sleep from this machine when present (debugging via docker exec)
#   /etc           passwd/group (root), nsswitch.conf (hosts: files dns), empty /tmp (1777)
# The broker itself is not in the image: the tests bind-mount broker-dist/target/lib read-only.
#
# Idempotent: exits at once when the image exists and was built by this version of the script (its label
# org.tandembroker.base.recipe holds a hash of this file); --force rebuilds anyway.
# Usage: build-base-image.sh [--force]      environment: TANDEM_BASE_IMAGE (tag), JAVA_HOME (JDK to use)
set -euo pipefail

image="${TANDEM_BASE_IMAGE:-tandem-base:1}"
force=""
case "${1:-}" in
  --force) force=1 ;;
  "") ;;
  *) echo "usage: $0 [--force]" >&2; exit 2 ;;
esac

recipe="$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)"
if [ -z "$force" ]; then
  existing="$(docker image inspect -f '{{ index .Config.Labels "org.tandembroker.base.recipe" }}' "$image" 2>/dev/null || true)"
  if [ "$existing" = "$recipe" ]; then
    echo "build-base-image: $image is up to date (recipe $recipe)"
    exit 0
  fi
fi

started=$SECONDS
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  jdk="$JAVA_HOME"
else
  jdk="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.home = //p')"
fi
jdk="$(readlink -f "$jdk")"
version="$("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.runtime.version = //p')"
case "$version" in
  17*) ;;
  *) echo "build-base-image: need a Java 17 JDK, found '$version' at $jdk (set JAVA_HOME)" >&2; exit 1 ;;
esac

work="$(mktemp -d "${TMPDIR:-/tmp}/tandem-base.XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
mkdir -p "$root"

# Merged /usr like Debian 12: /bin, /lib, /lib64 are links into /usr, so ldd's paths resolve in the image too.
mkdir -p "$root/usr/bin" "$root/usr/lib" "$root/usr/lib64" "$root/usr/sbin"
for d in bin lib lib64 sbin; do
  ln -s "usr/$d" "$root/$d"
done

# --- Java runtime -------------------------------------------------------------------------------------------
modules="java.se,jdk.unsupported,jdk.crypto.ec,jdk.crypto.cryptoki,jdk.management,jdk.management.agent"
# jdk.naming.rmi: the rmi: JNDI provider of the JMX client (ha-admin, backup.sh run inside a container).
modules="$modules,jdk.naming.dns,jdk.naming.rmi,jdk.net,jdk.zipfs,jdk.charsets,jdk.jfr,jdk.jcmd,jdk.attach"
modules="$modules,jdk.httpserver"
if [ -x "$jdk/bin/jlink" ] && [ -f "$jdk/jmods/java.base.jmod" ]; then
  echo "build-base-image: jlink from $jdk ($version)"
  "$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files --compress=2 \
    --generate-cds-archive --output "$root/opt/java"
  # Only used with heaps over 32 GiB (no compressed oops): 10 MB the tests never need.
  rm -f "$root/opt/java/lib/server/classes_nocoops.jsa"
else
  echo "build-base-image: no jmods in $jdk: copying its java.home ($version)"
  mkdir -p "$root/opt/java"
  (cd "$jdk" && tar -ch --exclude=./jmods --exclude=./include --exclude=./man --exclude=./docs --exclude=./demo \
    --exclude=./lib/src.zip --exclude=./lib/ct.sym --exclude=./legal . ) | tar -x -C "$root/opt/java"
fi
# Desktop natives need X11, sound and font libraries a broker never loads: leave them (and their
# dependencies) out rather than half-install them.
rm -f "$root"/opt/java/lib/{libawt_xawt,libsplashscreen,libjsound,libfontmanager,libjawt,libatk-wrapper}.so

# --- Tools (optional) -----------------------------------------------------------------------------------------
tools=()
for t in sh cat ls getent ps kill sleep; do
  if path="$(type -P "$t")" && [ -x "$path" ]; then
    real="$(readlink -f "$path")"
    cp "$real" "$root/usr/bin/$t"
    tools+=("$root/usr/bin/$t")
  fi
done

# --- Shared libraries -----------------------------------------------------------------------------------------
mapfile -t elf_files < <(find "$root/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' \) ; printf '%s\n' "${tools[@]}")
declare -A libraries=()
for f in "${elf_files[@]}"; do
  # "libfoo.so.1 => /lib/x86_64-linux-gnu/libfoo.so.1 (0x...)" and "/lib64/ld-linux-x86-64.so.2 (0x...)";
  # "libjvm.so => not found" is the JDK's own library, loaded by the launcher first.
  while read -r lib; do
    [ -n "$lib" ] && libraries["$lib"]=1
  done < <(ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
done
# glibc loads libgcc_s itself (thread cancellation, backtraces): ldd does not list it.
for extra in /lib/x86_64-linux-gnu/libgcc_s.so.1 /usr/lib/x86_64-linux-gnu/libgcc_s.so.1; do
  [ -e "$extra" ] && libraries["$extra"]=1
done
for lib in "${!libraries[@]}"; do
  dir="$(readlink -f "$(dirname "$lib")")"
  mkdir -p "$root$dir"
  cp -L "$lib" "$root$dir/$(basename "$lib")"
done

# --- /etc and the rest ----------------------------------------------------------------------------------------
mkdir -p "$root/etc" "$root/root" "$root/tmp" "$root/proc" "$root/sys" "$root/dev" "$root/tandem"
chmod 1777 "$root/tmp"
echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
echo 'root:x:0:' > "$root/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$root/etc/nsswitch.conf"
# Docker bind-mounts its own versions of these over the placeholders.
touch "$root/etc/hosts" "$root/etc/resolv.conf" "$root/etc/hostname"

tar --numeric-owner --owner=0 --group=0 -C "$root" -c . | docker import \
  --change 'ENV PATH=/opt/java/bin:/usr/bin:/bin' \
  --change 'ENV JAVA_HOME=/opt/java' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'WORKDIR /tandem' \
  --change "LABEL org.tandembroker.base.recipe=$recipe" \
  --change "LABEL org.tandembroker.base.java=$version" \
  - "$image" >/dev/null

# The image must run Java on its own, without anything from this machine.
if ! out="$(docker run --rm --network none "$image" java -Xshare:auto -version 2>&1)"; then
  echo "build-base-image: the new image cannot run java:" >&2
  echo "$out" >&2
  docker rmi "$image" >/dev/null 2>&1 || true
  exit 1
fi
size="$(docker image inspect -f '{{.Size}}' "$image")"
echo "build-base-image: built $image in $((SECONDS - started))s, $((size / 1024 / 1024)) MiB, java $version (recipe $recipe)"
