# ruff: noqa: E501  (verbatim command output and file contents)
"""Erlang/OTP: SMTP workers crash-looping take the node down; backoff instead of crashing; compacted midway (English)."""

from make_sessions import Session

WORKER = '''-module(courier_worker).
-behaviour(gen_server).

-export([start_link/1, send/2]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2]).

-record(st, {relay :: {string(), inet:port_number()}, sock :: gen_tcp:socket() | undefined}).

start_link(Relay) ->
    gen_server:start_link(?MODULE, Relay, []).

send(Pid, Msg) ->
    gen_server:call(Pid, {send, Msg}, 15000).

init({Host, Port} = Relay) ->
    {ok, Sock} = gen_tcp:connect(Host, Port, [binary, {active, false}], 5000),
    {ok, #st{relay = Relay, sock = Sock}}.

handle_call({send, Msg}, _From, #st{sock = Sock} = St) ->
    ok = courier_smtp:deliver(Sock, Msg),
    {reply, ok, St}.

handle_cast(_Msg, St) ->
    {noreply, St}.

handle_info({tcp_closed, _}, St) ->
    {stop, relay_closed, St};
handle_info(_Info, St) ->
    {noreply, St}.
'''

SUP = '''-module(courier_sup).
-behaviour(supervisor).

-export([start_link/0, init/1]).

start_link() ->
    supervisor:start_link({local, ?MODULE}, ?MODULE, []).

init([]) ->
    {ok, Relay} = application:get_env(courier, relay),
    Size = application:get_env(courier, pool_size, 8),
    SupFlags = #{strategy => one_for_one, intensity => 5, period => 10},
    Children = [#{id => {worker, N},
                  start => {courier_worker, start_link, [Relay]},
                  restart => permanent}
                || N <- lists:seq(1, Size)],
    {ok, {SupFlags, Children}}.
'''

WORKER_V2 = '''-module(courier_worker).
-behaviour(gen_server).

-export([start_link/1, send/2]).
-export([init/1, handle_continue/2, handle_call/3, handle_cast/2, handle_info/2]).

%% The relay's own health check runs every 30 s, so there is no point waiting longer.
-define(MAX_BACKOFF, 30_000).
-define(MIN_BACKOFF, 500).

-record(st, {relay :: {string(), inet:port_number()},
             sock :: gen_tcp:socket() | undefined,
             backoff = ?MIN_BACKOFF :: pos_integer()}).

start_link(Relay) ->
    gen_server:start_link(?MODULE, Relay, []).

send(Pid, Msg) ->
    gen_server:call(Pid, {send, Msg}, 15000).

init(Relay) ->
    {ok, connect(#st{relay = Relay})}.

connect(#st{relay = {Host, Port}, backoff = B} = St) ->
    case gen_tcp:connect(Host, Port, [binary, {active, false}], 5000) of
        {ok, Sock} ->
            St#st{sock = Sock, backoff = ?MIN_BACKOFF};
        {error, Reason} ->
            logger:warning("relay ~s:~b unreachable (~p), retry in ~b ms", [Host, Port, Reason, B]),
            erlang:send_after(B, self(), reconnect),
            St#st{sock = undefined, backoff = min(B * 2, ?MAX_BACKOFF)}
    end.

handle_continue(_, St) ->
    {noreply, St}.

handle_call({send, _Msg}, _From, #st{sock = undefined} = St) ->
    {reply, {error, relay_down}, St};
handle_call({send, Msg}, _From, #st{sock = Sock} = St) ->
    {reply, courier_smtp:deliver(Sock, Msg), St}.

handle_cast(_Msg, St) ->
    {noreply, St}.

handle_info(reconnect, St) ->
    {noreply, connect(St)};
handle_info({tcp_closed, _}, St) ->
    {noreply, connect(St#st{sock = undefined})};
handle_info(_Info, St) ->
    {noreply, St}.
'''

SUMMARY = """Summary of the conversation so far:

1. Primary request: in the `courier` OTP application (Erlang, rebar3), the pool of SMTP relay workers (`courier_worker` under `courier_sup`) took the whole node down last night when the mail relay flapped. The user wants workers that survive a relay outage.

2. Key facts and user instructions:
   - Prod runs OTP 25; the user said "no OTP 26 stuff, no maybe expressions".
   - `rebar3 upgrade gen_smtp` was rejected: "don't bump deps in this PR, Marta does dep bumps once a month against the internal hex mirror".
   - Raising `intensity` in courier_sup to 50 was reverted after the user said "that just papers over it, the node still dies, only later".

3. Work done:
   - courier_worker rewritten so a failed connect no longer crashes: the worker stays up with `sock = undefined`, answers `{error, relay_down}` to `send/2`, and retries with exponential backoff from 500 ms up to 30 s (`?MAX_BACKOFF`, 30 s because the relay's own health check runs every 30 s).
   - Added test cases `relay_refused` (port 1, econnrefused) and `boot_not_blocked` (unroutable 10.255.255.1, start_link must return in under 1 s) to test/courier_worker_SUITE.erl.

4. Current state: `rebar3 ct --suite=test/courier_worker_SUITE` failed (shown behind `| tail`, exit 0): `relay_refused` passed, `boot_not_blocked` failed with `{badmatch,false}` at line 31 (start_link took too long). Not yet diagnosed; the fix has not been verified."""


def build() -> Session:
    s = Session("erlang-smtp-backoff-compact-en", cwd="/home/dmitri/src/courier", branch="fix/relay-flap",
                start="2026-06-09T07:12:44.310Z", version="2.1.52", slug="flapping-relay-heron")
    s.user(
        "courier went down hard last night around 2am. the smtp relay flapped for a couple minutes and "
        "the whole node died, app stopped, systemd restarted it. logs attached below. I want the "
        "workers to survive the relay being gone.\n\n"
        "=CRASH REPORT==== 9-Jun-2026::02:03:17.412 ===\n  crasher:\n    initial call: courier_worker:init/1\n"
        "    exception error: no match of right hand side value {error,econnrefused}\n"
        "=SUPERVISOR REPORT==== 9-Jun-2026::02:03:17.913 ===\n    supervisor: {local,courier_sup}\n"
        "    errorContext: shutdown\n    reason: reached_max_restart_intensity\n\n"
        "fyi prod is OTP 25, so no OTP 26 stuff, no maybe expressions",
        wait=6,
    )
    s.call(s.read_call("src/courier_worker.erl", WORKER), s.read_call("src/courier_sup.erl", SUP))
    s.bash("cat rebar.config", '''{erl_opts, [debug_info, warnings_as_errors]}.
{deps, [
    {gen_smtp, "1.2.0"},
    {telemetry, "1.2.1"}
]}.
{minimum_otp_vsn, "25"}.
{dialyzer, [{warnings, [unmatched_returns, error_handling]}]}.''', desc="Show rebar.config")
    s.say(
        "The crash report says it all: `init/1` does `{ok, Sock} = gen_tcp:connect(...)`, so every "
        "restart while the relay is down crashes again at once. 8 workers × a crash each inside "
        "10 s blows through `intensity => 5, period => 10`, the supervisor gives up and takes the "
        "application with it.\n\nQuickest mitigation first: give the supervisor more headroom."
    )
    s.edit("src/courier_sup.erl", "    SupFlags = #{strategy => one_for_one, intensity => 5, period => 10},",
           "    SupFlags = #{strategy => one_for_one, intensity => 50, period => 10},")
    s.say("Also checking whether gen_smtp has a newer release with built-in reconnect handling:")
    s.bash_rejected("rebar3 upgrade gen_smtp", desc="Upgrade gen_smtp",
                    reason="don't bump deps in this PR. Marta does dep bumps once a month against the internal hex mirror")
    s.say("Understood, leaving deps alone.")
    s.turn_end()
    s.user(
        "and the intensity thing just papers over it, the node still dies, only later. revert that. "
        "the worker itself shouldn't crash because the relay is away",
        wait=35,
    )
    s.edit("src/courier_sup.erl", "    SupFlags = #{strategy => one_for_one, intensity => 50, period => 10},",
           "    SupFlags = #{strategy => one_for_one, intensity => 5, period => 10},")
    s.say(
        "Reverted. Then the worker owns the failure: a failed connect leaves it running with no "
        "socket, `send/2` answers `{error, relay_down}` so callers can queue or bounce, and it "
        "retries with exponential backoff. The supervisor only sees real bugs again. I'll cap the "
        "backoff at 30 s — the relay's health check in `config/sys.config` comments runs every "
        "30 s, so waiting longer than that gains nothing."
    )
    s.bash("grep -n health config/sys.config", '''14:    %% relay LB health check: every 30 s, 2 failures -> out of rotation''', desc="Find relay health check note")
    s.write("src/courier_worker.erl", WORKER_V2)
    s.call(s.read_call("test/courier_worker_SUITE.erl", '''-module(courier_worker_SUITE).
-include_lib("common_test/include/ct.hrl").
-export([all/0, init_per_testcase/2, end_per_testcase/2]).
-export([delivers_when_up/1]).

all() -> [delivers_when_up].

init_per_testcase(_, Config) ->
    {ok, Port} = fake_relay:start(),
    [{port, Port} | Config].

end_per_testcase(_, _Config) ->
    fake_relay:stop().

delivers_when_up(Config) ->
    {ok, Pid} = courier_worker:start_link({"127.0.0.1", ?config(port, Config)}),
    ok = courier_worker:send(Pid, <<"hi">>).
'''))
    s.edit("test/courier_worker_SUITE.erl", '''-export([delivers_when_up/1]).

all() -> [delivers_when_up].''', '''-export([delivers_when_up/1, relay_refused/1, boot_not_blocked/1]).

all() -> [delivers_when_up, relay_refused, boot_not_blocked].''')
    s.edit("test/courier_worker_SUITE.erl", '''    ok = courier_worker:send(Pid, <<"hi">>).
''', '''    ok = courier_worker:send(Pid, <<"hi">>).

relay_refused(_Config) ->
    %% nothing listens on port 1: connect fails at once with econnrefused
    {ok, Pid} = courier_worker:start_link({"127.0.0.1", 1}),
    {error, relay_down} = courier_worker:send(Pid, <<"hi">>),
    true = is_process_alive(Pid).

boot_not_blocked(_Config) ->
    %% 10.255.255.1 is unroutable: connect hangs until its 5 s timeout
    {T, {ok, _Pid}} = timer:tc(courier_worker, start_link, [{"10.255.255.1", 2525}]),
    true = T < 1000000.
''')
    s.bash("rebar3 ct --suite=test/courier_worker_SUITE 2>&1 | tail -12", '''===> Running Common Test suites...
%%% courier_worker_SUITE: ..
%%% courier_worker_SUITE ==> boot_not_blocked: FAILED
%%% courier_worker_SUITE ==> {{badmatch,false},
 [{courier_worker_SUITE,boot_not_blocked,1,
                        [{file,"/home/dmitri/src/courier/test/courier_worker_SUITE.erl"},
                         {line,31}]}]}

Failed 1 tests. Passed 2 tests.
Results written to "/home/dmitri/src/courier/_build/test/logs/index.html".
===> Failures occurred running tests: 1''', desc="Run worker suite", secs=29)
    s.compact(SUMMARY, pre_tokens=164310)
    s.user_text_block("continue", wait=4)
    s.call(s.read_call("src/courier_worker.erl", WORKER_V2))
    s.say(
        "`boot_not_blocked` fails on `true = T < 1000000`: `start_link` took longer than 1 s. "
        "Cause: `init/1` still runs `connect/1` itself, so with an unroutable relay `start_link` "
        "blocks for the full 5 s connect timeout — and under the supervisor that's 5 s per worker "
        "at boot. The first connect belongs in `handle_continue`, after `start_link` has returned."
    )
    s.edit("src/courier_worker.erl", '''init(Relay) ->
    {ok, connect(#st{relay = Relay})}.''', '''init(Relay) ->
    %% connect after start_link returns: a dead relay must not block the supervisor
    {ok, #st{relay = Relay}, {continue, connect}}.''')
    s.edit("src/courier_worker.erl", '''handle_continue(_, St) ->
    {noreply, St}.''', '''handle_continue(connect, St) ->
    {noreply, connect(St)}.''')
    s.bash("rebar3 ct --suite=test/courier_worker_SUITE 2>&1 | tail -12", '''===> Running Common Test suites...
%%% courier_worker_SUITE: ...
All 3 tests passed.''', desc="Run worker suite", secs=21)
    s.bash("rebar3 eunit", '''===> Verifying dependencies...
===> Analyzing applications...
===> Compiling courier
===> Performing EUnit tests...
.............

Finished in 0.412 seconds
13 tests, 0 failures''', desc="EUnit", secs=9)
    s.bash("rebar3 dialyzer 2>&1 | tail -8", '''===> Dialyzer starting, this may take a while...
===> Analyzing 9 files with _build/default/rebar3_25.3.2.9_plt...

src/courier_pool.erl
Line 41 Column 2: The pattern {'ok', Pid} can never match the type {'error','relay_down'} | 'ok'
===> Warnings occurred running dialyzer: 1''', desc="Dialyzer", secs=48)
    s.call(s.read_call("src/courier_pool.erl", '''-module(courier_pool).
-export([send/1]).

send(Msg) ->
    Pid = pick(),
    case courier_worker:send(Pid, Msg) of
        {ok, Pid} -> ok;
        ok -> ok
    end.
''', offset=None))
    s.say(
        "Dialyzer flags `courier_pool:send/1`: it still matches `{ok, Pid}`, which `send/2` never "
        "returned even before today, and it doesn't handle the new `{error, relay_down}`. What the "
        "pool should do then (try another worker? queue?) is a behaviour question, so I haven't "
        "touched it."
    )
    s.turn_end()
    s.user(
        "leave the pool, I'll do courier_pool tomorrow, it needs a proper retry queue anyway. "
        "run xref too pls",
        wait=60,
    )
    s.bash("rebar3 xref", '''===> Verifying dependencies...
===> Analyzing applications...
===> Compiling courier
===> Running cross reference analysis...''', desc="Xref", secs=8)
    s.say(
        "xref is clean.\n\nSummary:\n"
        "- `courier_worker` no longer crashes when the relay is down: it replies `{error, relay_down}` "
        "and reconnects with backoff 500 ms → 30 s (the relay's health check interval).\n"
        "- The first connect happens in `handle_continue`, so a dead relay can't block `start_link` "
        "or the supervisor at boot.\n"
        "- Supervisor intensity back to 5/10, no dependency changes.\n"
        "- Dialyzer still warns about `courier_pool:send/1` — yours for tomorrow.\n\n"
        "One thing I can't decide from here: should a worker sitting in backoff raise an alert? "
        "Right now it only logs a warning per retry."
    )
    s.turn_end()
    s.user("good q, ask Priya, she owns the alerting rules. thx", wait=40)
    s.say("Noted — question for Priya about alerting on workers in backoff.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Erlang/OTP gen_server + supervisor, rebar3 (common test, eunit, dialyzer, xref), English",
        "crash report pasted in the first prompt (reached_max_restart_intensity) and an OTP-25 rule in passing",
        "a dependency upgrade rejected with the user's reason (Marta bumps deps monthly)",
        "raising supervisor intensity tried, reverted after the user called it papering over",
        "decision with its why before a Write (backoff capped at 30 s = relay health check)",
        "common test failure behind `| tail` (exit 0); compaction between diagnosis and fix; the summary corrected after it",
        "dialyzer warning left for tomorrow (implicit todo), an open question handed to a colleague",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "project_fact"],
         "match": [["OTP 25"], ["maybe", "OTP 26"]],
         "note": "Prod runs OTP 25: no OTP 26 features such as maybe expressions."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["Marta"], ["dep", "bump", "upgrade"]],
         "note": "No dependency bumps in feature PRs; Marta bumps deps once a month against the internal hex mirror."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "preference", "constraint"],
         "match": [["intensity"], ["papers over", "paper"]],
         "note": "Raising courier_sup's restart intensity to 50 was reverted: it only papers over the crash loop, the node still dies later."},
        {"id": "d1", "type": "decision",
         "match": [["backoff"], ["relay_down", "crash", "relay"]],
         "note": "courier_worker no longer crashes when the relay is down: it answers {error, relay_down} and reconnects with exponential backoff, so the supervisor only sees real bugs."},
        {"id": "d2", "type": "decision", "types": ["decision", "project_fact"],
         "match": [["30 s", "30_000", "30s"], ["health check"]],
         "note": "The reconnect backoff is capped at 30 s because the relay's load-balancer health check runs every 30 s."},
        {"id": "b1", "type": "bug_note",
         "match": [["handle_continue"], ["init", "start_link"]],
         "note": "Connecting inside init/1 blocked start_link (5 s connect timeout per worker) when the relay was unreachable; the first connect now happens in handle_continue."},
        {"id": "t1", "type": "todo",
         "match": [["courier_pool"], ["retry queue", "dialyzer", "relay_down"]],
         "note": "courier_pool:send/1 still matches {ok, Pid} and ignores {error, relay_down} (dialyzer warning); Dmitri does it tomorrow with a proper retry queue."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["Priya"], ["alert"]],
         "note": "Should workers sitting in backoff raise an alert? Ask Priya, who owns the alerting rules."},
        {"id": "v1", "type": "verified_command", "command": "rebar3 ct --suite=test/courier_worker_SUITE"},
        {"id": "v2", "type": "verified_command", "command": "rebar3 eunit"},
        {"id": "v3", "type": "verified_command", "command": "rebar3 xref"},
    ],
    "secrets": [],
    "forbidden": [["This session is being continued"], ["doesn't want to proceed"]],
}
