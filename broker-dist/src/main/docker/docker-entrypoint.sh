#!/bin/sh
# The Tandem image's entrypoint (POSIX sh: the image has no bash).
#   broker [BrokerMain options]   (the default) the broker with /tandem/etc/broker.xml, work in /tandem/work
#   arbiter                       a JE arbiter for a pair: TANDEM_GROUP_NAME, TANDEM_NODE_NAME,
#                                 TANDEM_NODE_HOST_PORT, TANDEM_HELPER_HOST_PORT (the two brokers)
#   ha-admin [ARGS]               bin/ha-admin inside the container, e.g. docker exec -e TANDEM_JMX_USER=admin
#                                 -e TANDEM_JMX_PASSWORD=... CONTAINER /tandem/bin/docker-entrypoint ha-admin status
#   tool CLASS [ARGS]             any broker-tools main class, e.g. org.tandembroker.tools.haadmin.HaAdmin status
#   anything else                 run as given
# Settings come from TANDEM_* environment variables (docs/configuration.md, "Environment variables"); the defaults
# below depend on the container's host name, so they are set here rather than in the XML files.
# TANDEM_ADMIN_USER with TANDEM_ADMIN_PASSWORD_FILE (a Docker secret) or TANDEM_ADMIN_PASSWORD adds an operator
# (JMX role admin, AMQP access) to a users file in the work volume, rewritten at each start from etc/users.
# JAVA_OPTS is passed to java. Only sh builtins and the base image's few tools may be used here.
set -eu

host="${HOSTNAME:-localhost}"
export TANDEM_AMQP_PORT="${TANDEM_AMQP_PORT:-5672}"
export TANDEM_ADVERTISED_ADDRESS="${TANDEM_ADVERTISED_ADDRESS:-$host:$TANDEM_AMQP_PORT}"
export TANDEM_JMX_RMI_HOSTNAME="${TANDEM_JMX_RMI_HOSTNAME:-$host}"
export TANDEM_GROUP_NAME="${TANDEM_GROUP_NAME:-tandem}"
export TANDEM_NODE_NAME="${TANDEM_NODE_NAME:-$host}"
export TANDEM_NODE_HOST_PORT="${TANDEM_NODE_HOST_PORT:-$host:5000}"
export TANDEM_HELPER_HOST_PORT="${TANDEM_HELPER_HOST_PORT:-$TANDEM_NODE_HOST_PORT}"

run_java() {
  # shellcheck disable=SC2086
  exec java -XX:+ExitOnOutOfMemoryError ${JAVA_OPTS:-} -Dtandem.home=/tandem \
    -Dlogback.configurationFile=/tandem/etc/logback.xml -cp '/tandem/lib/*' "$@"
}

add_admin_user() {
  [ -n "${TANDEM_ADMIN_USER:-}" ] || return 0
  if [ -n "${TANDEM_ADMIN_PASSWORD_FILE:-}" ]; then
    password="$(cat "$TANDEM_ADMIN_PASSWORD_FILE")"
  elif [ -n "${TANDEM_ADMIN_PASSWORD:-}" ]; then
    password="$TANDEM_ADMIN_PASSWORD"
  else
    echo "tandem: TANDEM_ADMIN_USER is set but neither TANDEM_ADMIN_PASSWORD_FILE nor TANDEM_ADMIN_PASSWORD" >&2
    exit 2
  fi
  # The image has sh, cat, ls and few other tools (no mkdir, no chmod): /tandem/work is the volume; umask keeps
  # the users file (password hashes) to its owner.
  umask 077
  cat /tandem/etc/users > /tandem/work/users
  printf '%s\n' "$password" | java -Xmx64m -XX:TieredStopAtLevel=1 -Dlogback.configurationFile=tandem-tools-logback.xml \
    -cp '/tandem/lib/*' org.tandembroker.tools.passwd.UserAdmin add /tandem/work/users "$TANDEM_ADMIN_USER" \
    --role admin >/dev/null
  export TANDEM_USERS_FILE="${TANDEM_USERS_FILE:-/tandem/work/users}"
}

command="${1:-broker}"
[ $# -gt 0 ] && shift
case "$command" in
  broker)
    add_admin_user
    run_java org.tandembroker.core.daemon.BrokerMain --config /tandem/etc/broker.xml --work /tandem/work "$@"
    ;;
  arbiter)
    run_java -Dlogback.configurationFile=tandem-tools-logback.xml org.tandembroker.tools.arbiter.ArbiterMain \
      --group-name "$TANDEM_GROUP_NAME" --node-name "$TANDEM_NODE_NAME" \
      --node-host-port "$TANDEM_NODE_HOST_PORT" --helper-host-port "$TANDEM_HELPER_HOST_PORT" --dir /tandem/work "$@"
    ;;
  ha-admin)
    run_java -Dlogback.configurationFile=tandem-tools-logback.xml org.tandembroker.tools.haadmin.HaAdmin "$@"
    ;;
  tool)
    main="$1"
    shift
    run_java -Dlogback.configurationFile=tandem-tools-logback.xml "$main" "$@"
    ;;
  *)
    exec "$command" "$@"
    ;;
esac
