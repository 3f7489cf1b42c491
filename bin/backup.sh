#!/usr/bin/env bash
# Backs up a store directory (spec 1.6.13; see docs/operations.md, "Backup"):
#   bin/backup.sh -fromdir STORE -todir DIR                              a stopped broker's store: copied here
#   bin/backup.sh -fromdir STORE -todir DIR --user U --password-file F [--port 9001]
#                                                                        a running broker: it takes a hot backup
# The running broker writes DIR on its own machine. Prints the files copied, their sizes and the last file
# number. Exit codes: 0 done, 1 refused/failed, 2 usage, 3 cannot connect, 4 authentication/authorisation.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/tandem-env.sh"
tandem_build_if_needed
# shellcheck disable=SC2086
exec "$(tandem_java)" ${JAVA_OPTS:-} -Dlogback.configurationFile=tandem-tools-logback.xml \
  -cp "$TANDEM_LIB/*" org.tandembroker.store.bdb.tools.BDBBackup "$@"
