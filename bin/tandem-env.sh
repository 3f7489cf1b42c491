# Sourced by the bin/ scripts: locates the installation and builds it when the sources are newer than the build.
# shellcheck shell=bash
TANDEM_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TANDEM_LIB="$TANDEM_HOME/broker-dist/target/lib"
TANDEM_STAMP="$TANDEM_LIB/.built"

tandem_build_if_needed() {
  # TANDEM_NO_BUILD=1: use the assembled broker as it is (the system tests run these scripts inside a build).
  [ -n "${TANDEM_NO_BUILD:-}" ] && return 0
  local stale=""
  if [ ! -f "$TANDEM_STAMP" ]; then
    stale="no build yet"
  elif [ -n "$(find "$TANDEM_HOME" -path "$TANDEM_HOME/perftests" -prune -o \( -path '*/src/main/*' -o -name pom.xml \) -newer "$TANDEM_STAMP" -print -quit 2>/dev/null)" ]; then
    stale="sources changed"
  fi
  if [ -n "$stale" ]; then
    echo "tandem: building ($stale): mvn -DskipTests package -pl broker-dist -am" >&2
    if ! command -v mvn >/dev/null 2>&1; then
      echo "tandem: Maven (mvn) is needed to build; install Maven 3.8+ and Java 17+" >&2
      exit 1
    fi
    # sed: Debian's Maven 3.8 prints ESC[0m even with -B; keep the terminal free of stray escape codes.
    (cd "$TANDEM_HOME" && mvn -B -q -DskipTests package -pl broker-dist -am) 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2
    [ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
    touch "$TANDEM_STAMP"
  fi
}

tandem_java() {
  if [ -n "${JAVA_HOME:-}" ]; then echo "$JAVA_HOME/bin/java"; else echo java; fi
}

# Runs one of the operators' tools (broker-tools; MAIN is its class) with the tools' one logging configuration:
# results on standard output, only the libraries' warnings and errors on standard error. JAVA_OPTS is passed to java.
tandem_run_tool() {
  local main="$1"
  shift
  tandem_build_if_needed
  # shellcheck disable=SC2086
  exec "$(tandem_java)" ${JAVA_OPTS:-} -Dlogback.configurationFile=tandem-tools-logback.xml \
    -cp "$TANDEM_LIB/*" "$main" "$@"
}
