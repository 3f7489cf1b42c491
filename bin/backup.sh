#!/usr/bin/env bash
# Backs up a store directory (spec 1.6.13; see docs/operations.md, "Backup"):
#   bin/backup.sh -fromdir STORE -todir DIR                              a stopped broker's store: copied here
#   bin/backup.sh -fromdir STORE -todir DIR --user U --password-file F [--port 9001]
#                                                                        a running broker: it takes a hot backup
# (-fromdir/-todir are the spec's spelling of --store-path/--to-dir; both work.) The running broker writes DIR on
# its own machine. Prints the files copied, their sizes and the last file number. bin/backup.sh --help.
# Exit codes: 0 done, 1 refused/failed, 2 usage, 3 cannot connect, 4 authentication/authorisation.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/tandem-env.sh"
tandem_run_tool org.tandembroker.tools.backup.BDBBackup "$@"
