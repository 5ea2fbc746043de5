# Engram's hook launcher: hand Claude Code's payload to the warm worker without starting
# Python (an interpreter's start-up alone costs more than the worker's whole answer).
#
#   sh launch.sh SOCKET STORE_ENV ENGRAM hook EVENT
#
# SOCKET is the worker socket `engram setup` found for this store, and STORE_ENV the
# "$ENGRAM_HOME|$ENGRAM_DB|$ENGRAM_EMBEDDER" it found it with; `ENGRAM hook EVENT` is
# the Python hook, run instead whenever the fast path cannot be taken: no worker
# listening (it then starts one), no curl, an environment naming another store, or one
# that switches hooks' behaviour. Like the Python hook it fails open: whatever happens, exit 0 and print nothing
# but the worker's answer, within the event's deadline.
sock=$1
store_env=$2
shift 2
event=$3
case $event in
  UserPromptSubmit) limit=3 ;;
  PostToolUseFailure) limit=5 ;;
  Stop|SubagentStop|PreCompact|SessionEnd) limit=20 ;;
  *) limit=8 ;;
esac
if [ "$ENGRAM_HOME|$ENGRAM_DB|$ENGRAM_EMBEDDER" != "$store_env" ] \
    || [ -n "$ENGRAM_HOOKS$ENGRAM_HOOK_WORKER$ENGRAM_HOOK_DEADLINE" ] \
    || [ ! -S "$sock" ] || ! command -v curl >/dev/null 2>&1; then
  exec "$@"
fi
payload=$(cat) || exit 0
answer=$(printf '%s' "$payload" | curl -sf --unix-socket "$sock" --max-time "$limit" \
  -H 'Expect:' -H 'Content-Type: application/json' --data-binary @- \
  "http://engram/hook/$event" 2>/dev/null)
case $? in
  0) printf '%s' "$answer" ;;
  7) printf '%s' "$payload" | "$@" ;;  # the socket is stale: the worker is gone
esac
exit 0
