#!/usr/bin/env bash
# Writes docs/cli.md from the commands' own --help, so the reference always matches the
# binary. Usage: Scripts/gen-cli-docs.sh [path/to/geopipe] > docs/cli.md
set -euo pipefail
bin=${1:-.build/debug/geopipe}
echo "# Command-line reference"
echo
echo "Generated from \`geopipe --help\` and \`geopipe <command> --help\` by"
echo "\`Scripts/gen-cli-docs.sh\`; a test checks that it matches the binary."
echo
echo '```'
"$bin" --help
echo '```'
# The commands, in the order the overview lists them.
commands=$("$bin" --help | sed -n '/^COMMANDS:/,/^$/p' | awk 'NF && $1 != "COMMANDS:" {print $1}')
for command in $commands; do
  echo
  echo "## $command"
  echo
  echo '```'
  "$bin" "$command" --help
  echo '```'
done
