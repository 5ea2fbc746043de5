# ruff: noqa: E501  (verbatim command output and file contents)
"""Rails 7.1 + Hotwire: Turbo Stream broadcasts lost on staging (two hosts); several false leads, a compaction, the cause explained after the fix (English)."""

from make_sessions import Session

COMMENT_RB = '''class Comment < ApplicationRecord
  belongs_to :post, touch: true
  belongs_to :author, class_name: "User"

  validates :body, presence: true, length: { maximum: 4_000 }

  after_create_commit -> { broadcast_append_to post, target: "comments" }
end
'''

SHOW_ERB = '''<% content_for :title, @post.title %>

<article class="post">
  <h1><%= @post.title %></h1>
  <%= simple_format @post.body %>
</article>

<%= turbo_stream_from @post %>

<section id="comments">
  <%= render @post.comments.includes(:author) %>
</section>

<%= render "comments/form", post: @post, comment: Comment.new %>
'''

CABLE_YML = '''development:
  adapter: postgresql

test:
  adapter: test

staging:
  adapter: postgresql
  channel_prefix: quill_staging

production:
  adapter: postgresql
  channel_prefix: quill_production
'''

DEPLOY_YML = '''service: quill
image: quill-app/quill

servers:
  web:
    hosts:
      - 10.20.0.11
      - 10.20.0.12

proxy:
  ssl: true
  host: staging.quill.dev
  response_timeout: 30

env:
  clear:
    RAILS_ENV: staging
    RAILS_LOG_TO_STDOUT: "1"
  secret:
    - RAILS_MASTER_KEY
    - DATABASE_URL
'''

SECRETS = '''# Pulled from 1Password (vault: quill-staging) at deploy time
RAILS_MASTER_KEY=$(op read "op://quill-staging/rails/master_key")
DATABASE_URL=$(op read "op://quill-staging/postgres/url")
'''

COMMENT_TEST = '''require "test_helper"

class CommentTest < ActiveSupport::TestCase
  include ActionCable::TestHelper

  test "creating a comment broadcasts to the post's stream" do
    post = posts(:launch)
    assert_turbo_stream_broadcasts post do
      post.comments.create!(author: users(:ada), body: "first!")
    end
  end
end
'''

SUMMARY = '''Summary:
1. Primary Request and Intent: On staging (staging.quill.dev, two web hosts behind kamal-proxy) new comments don't appear live for other readers of a post; a reload shows them. Works locally. User (Marcus) wants it fixed without sticky sessions: "we're not doing sticky sessions again, they bit us during the Black Friday scale-up when one box got all the traffic".
2. Key Technical Concepts: Rails 7.1, turbo-rails 1.5, Action Cable with the postgresql adapter (channel_prefix quill_staging), Kamal 2 with kamal-proxy, broadcast_append_to in an after_create_commit callback, turbo_stream_from signed stream names.
3. Files and Code Sections:
   - app/models/comment.rb: after_create_commit -> { broadcast_append_to post, target: "comments" }
   - app/views/posts/show.html.erb: turbo_stream_from @post
   - config/cable.yml: staging uses postgresql, not async (checked, fine)
   - config/deploy.yml: two hosts 10.20.0.11 and 10.20.0.12; proxy response_timeout 30
   - test/models/comment_test.rb: new test using assert_turbo_stream_broadcasts
4. Errors and fixes:
   - First guess (async adapter on staging) was wrong: cable.yml has postgresql for staging.
   - Switched the callback to broadcast_append_later_to: no change on staging, reverted.
   - Raised proxy response_timeout to 120: no change, reverted.
   - The new test has not been run yet.
5. Pending Tasks: run the new test; find why the browser subscription gets nothing. Marcus pasted from the browser console on a page served by .12: the cable connects, then "Subscription rejected" for Turbo::StreamsChannel.
6. Current Work: about to compare the logs on both hosts for the subscription rejection.'''


def build() -> Session:
    s = Session("rails-turbo-streams-compact-en", cwd="/home/marcus/code/quill", branch="fix/live-comments-staging",
                start="2026-03-09T14:02:31.904Z", version="2.1.58", slug="comments-lost-otter", stop_reasons=True)
    s.user(
        "live comments are broken on staging. post a comment in one browser, the other browser doesn't get it until reload. "
        "local works fine. can you dig in, I have the staging logs if you need them",
        wait=5,
    )
    s.call(s.read_call("app/models/comment.rb", COMMENT_RB), s.read_call("app/views/posts/show.html.erb", SHOW_ERB))
    s.say(
        "The model broadcasts on create and the page subscribes with `turbo_stream_from @post`, so the wiring "
        "is the standard one. The usual reason this works locally and not on a deployed box is the Action Cable "
        "adapter: with `async` each process only talks to itself. Checking `config/cable.yml`."
    )
    s.read("config/cable.yml", CABLE_YML)
    s.say(
        "Not that — staging is on the `postgresql` adapter with its own prefix, so broadcasts go through "
        "`NOTIFY` and every process should see them. Let me look at how staging is deployed."
    )
    s.read("config/deploy.yml", DEPLOY_YML)
    s.say(
        "Two web hosts behind kamal-proxy. That matters: the POST that creates the comment can land on one "
        "host while the other browser's websocket lives on the other. With the postgresql adapter that's "
        "still fine in theory. Easiest way to rule out a cross-host problem would be sticky sessions on the "
        "proxy so a reader's page and socket stay together — do you want me to try that?"
    )
    s.turn_end()
    s.user(
        "no. we're not doing sticky sessions again, they bit us during the black friday scale up when one box got all the traffic. "
        "find the actual problem pls",
        wait=50,
    )
    s.say(
        "Fair. Next suspect: the broadcast runs in `after_create_commit` inside the request. If the "
        "request is on a Puma thread that gets killed by a timeout before the notify goes out, it'd be lost. "
        "Moving it to a job (`broadcast_append_later_to`) takes it out of the request."
    )
    s.edit("app/models/comment.rb", '''  after_create_commit -> { broadcast_append_to post, target: "comments" }''',
           '''  after_create_commit -> { broadcast_append_later_to post, target: "comments" }''')
    s.bash("bin/rails test test/models", '''Running 23 tests in a single process (parallelization threshold is 50)
Run options: --seed 40112

# Running:

.......................

Finished in 0.914227s, 25.1579 runs/s, 41.5653 assertions/s.
23 runs, 38 assertions, 0 failures, 0 errors, 0 skips''', desc="Model tests", secs=9)
    s.bash("git add -A && git commit -q -m 'Broadcast comment appends from a job' && bin/kamal deploy -d staging 2>&1 | tail -4", '''  INFO [a1c3f9e2] Finished in 2.114 seconds with exit status 0 (successful).
Releasing the deploy lock...
  Finished all in 96.3 seconds''', desc="Deploy to staging", secs=110)
    s.say("Deployed. Can you try two browsers again?")
    s.turn_end()
    s.user("same thing. nothing shows up in the second one", wait=140)
    s.say(
        "OK, the callback wasn't it. Reverting so we don't ship a change that didn't fix anything. "
        "Another classic with proxies is websocket idle timeouts: kamal-proxy has `response_timeout: 30` here, "
        "and if the socket is cut after 30 s the browser reconnects but may miss messages in between."
    )
    s.edit("app/models/comment.rb", '''  after_create_commit -> { broadcast_append_later_to post, target: "comments" }''',
           '''  after_create_commit -> { broadcast_append_to post, target: "comments" }''')
    s.edit("config/deploy.yml", '''  response_timeout: 30''', '''  response_timeout: 120''')
    s.bash("git add -A && git commit -q -m 'Revert job broadcast; proxy response_timeout 120' && bin/kamal deploy -d staging 2>&1 | tail -3", '''Releasing the deploy lock...
  Finished all in 91.8 seconds''', desc="Deploy to staging", secs=100)
    s.user(
        "still broken. fwiw it's not only after 30s, it fails right away on a fresh page. "
        "here's the browser console from the second window:\n\n"
        "```\n[ActionCable] Opening WebSocket, current state is closed, subprotocols: actioncable-v1-json,actioncable-unsupported\n"
        "[ActionCable] WebSocket onopen event, using 'actioncable-v1-json' subprotocol\n"
        "[ActionCable] ConnectionMonitor recorded connect\n"
        "[ActionCable] Subscription rejected {\"channel\":\"Turbo::StreamsChannel\",\"signed_stream_name\":\"ImdpZDovL3F1aWxsL1Bvc3QvNDIi--5f1e0b…\"}\n```",
        wait=180,
    )
    s.say(
        "That's the real clue: the socket connects fine, then the subscription itself is **rejected**. So "
        "timeouts were a dead end too (bumping `response_timeout` to 120 changed nothing, I'll revert it). "
        "Turbo rejects a subscription when it can't verify the signed stream name. Before I chase that, let me "
        "add a test for the broadcast itself so we know the model side is right."
    )
    s.edit("config/deploy.yml", '''  response_timeout: 120''', '''  response_timeout: 30''')
    s.write("test/models/comment_test.rb", COMMENT_TEST)
    s.compact(SUMMARY, pre_tokens=158204)
    s.say("Picking up: running the new test first.")
    s.bash("bin/rails test test/models/comment_test.rb 2>&1 | tail -6", '''# Running:

E

Error:
CommentTest#test_creating_a_comment_broadcasts_to_the_post's_stream:
NoMethodError: undefined method `assert_turbo_stream_broadcasts' for #<CommentTest:0x00007f3a1c2e8b10>''', desc="Run the broadcast test", secs=8)
    s.bash("bundle exec gem list turbo-rails", "turbo-rails (1.5.0)", desc="turbo-rails version")
    s.say(
        "`assert_turbo_stream_broadcasts` only exists from turbo-rails 2.0; we're on 1.5. I won't bump a gem "
        "for a test helper, the plain Action Cable assertion does the same with the stream name Turbo uses."
    )
    s.edit("test/models/comment_test.rb", '''    assert_turbo_stream_broadcasts post do''',
           '''    assert_broadcasts Turbo::StreamsChannel.broadcasting_for(post), 1 do''')
    s.bash("bin/rails test test/models/comment_test.rb 2>&1 | tail -3", '''Finished in 0.204518s, 4.8895 runs/s, 4.8895 assertions/s.
1 runs, 1 assertions, 0 failures, 0 errors, 0 skips''', desc="Run the broadcast test", secs=7)
    s.say("Model side is fine: one broadcast per comment on the right stream. Now the rejection — looking at both hosts' logs.")
    s.bash("bin/kamal app logs -d staging --since 20m --grep 'StreamsChannel' 2>&1 | tail -8", '''App Host: 10.20.0.11
2026-03-09T15:21:07.114Z Turbo::StreamsChannel is streaming from ImdpZDovL3F1aWxsL1Bvc3QvNDIi
2026-03-09T15:22:40.552Z Turbo::StreamsChannel is streaming from ImdpZDovL3F1aWxsL1Bvc3QvNDIi
App Host: 10.20.0.12
2026-03-09T15:21:09.870Z Turbo::StreamsChannel is transmitting the subscription rejection
2026-03-09T15:22:41.023Z Turbo::StreamsChannel is transmitting the subscription rejection
2026-03-09T15:23:15.447Z Turbo::StreamsChannel is transmitting the subscription rejection''', desc="Subscription logs on both hosts", secs=6)
    s.say(
        "Every rejection is on `.12`, every success on `.11`. Same image on both, so the difference has to be "
        "in the environment. The signature on the stream name is derived from `secret_key_base`; comparing a "
        "digest of it on both hosts (not printing it):"
    )
    s.bash('''bin/kamal app exec -d staging --reuse "bin/rails runner 'puts Digest::SHA256.hexdigest(Rails.application.secret_key_base)[0,12]'" 2>&1 | tail -4''', '''App Host: 10.20.0.11
9c41d07be2aa
App Host: 10.20.0.12
3f08e6d1c5b7''', desc="secret_key_base digest per host", secs=12)
    s.say(
        "Different. `.12` decrypts a different `secret_key_base`. deploy.yml only passes `RAILS_MASTER_KEY`, so "
        "the key comes out of the credentials file each host decrypts:"
    )
    s.bash("bin/kamal app exec -d staging --reuse 'printenv SECRET_KEY_BASE | wc -c' 2>&1 | tail -4", '''App Host: 10.20.0.11
0
App Host: 10.20.0.12
129''', desc="Is SECRET_KEY_BASE set on a host?", secs=8)
    s.say(
        "There it is: `.12` has a `SECRET_KEY_BASE` in its host environment (129 bytes, so a real key), which "
        "overrides the credentials. `.11` doesn't. Probably left over from when `.12` was provisioned — it's "
        "not in deploy.yml or `.kamal/secrets`.\n\n"
        "Fix I'd make: pass `SECRET_KEY_BASE` explicitly from 1Password through `.kamal/secrets` for every "
        "host, like the other secrets, so no box can drift again. That keeps it stateless — no stickiness, which "
        "you ruled out."
    )
    s.read(".kamal/secrets", SECRETS)
    s.edit(".kamal/secrets", '''DATABASE_URL=$(op read "op://quill-staging/postgres/url")''',
           '''DATABASE_URL=$(op read "op://quill-staging/postgres/url")
SECRET_KEY_BASE=$(op read "op://quill-staging/rails/secret_key_base")''')
    s.edit("config/deploy.yml", '''    - RAILS_MASTER_KEY
    - DATABASE_URL''', '''    - RAILS_MASTER_KEY
    - DATABASE_URL
    - SECRET_KEY_BASE''')
    s.say("Committing and deploying.")
    s.bash_rejected("git add -A && git commit -q -m 'Pass SECRET_KEY_BASE to every staging host from 1Password so signed Turbo stream names verify on both web hosts (10.20.0.12 had its own key in the host env and rejected subscriptions from pages rendered on 10.20.0.11)' && bin/kamal deploy -d staging",
                    desc="Commit and deploy",
                    reason="shorter commit messages please, one line, the why goes in the PR. and wait, does the 1password item exist? check first")
    s.bash("op item get secret_key_base --vault quill-staging --fields label=password --reveal | wc -c", "129", desc="Does the 1Password item exist? (length only)", secs=4)
    s.say("The item exists (129 bytes, matching a Rails key). Short message this time.")
    s.bash("git add -A && git commit -q -m 'Pass SECRET_KEY_BASE to staging hosts' && bin/kamal deploy -d staging 2>&1 | tail -3", '''Releasing the deploy lock...
  Finished all in 94.1 seconds''', desc="Commit and deploy", secs=105)
    s.bash('''bin/kamal app exec -d staging --reuse "bin/rails runner 'puts Digest::SHA256.hexdigest(Rails.application.secret_key_base)[0,12]'" 2>&1 | tail -4''', '''App Host: 10.20.0.11
9c41d07be2aa
App Host: 10.20.0.12
9c41d07be2aa''', desc="secret_key_base digest per host", secs=12)
    s.say("Both hosts now agree. Could you try the two browsers once more?")
    s.turn_end()
    s.user("works!! both directions. so what was it exactly, for the PR description", wait=90)
    s.say(
        "For the PR:\n\n"
        "`turbo_stream_from @post` renders a stream name **signed** with a key derived from "
        "`secret_key_base`. When the websocket subscribes, the host handling the socket verifies that "
        "signature with its own key. Host `10.20.0.12` had a stray `SECRET_KEY_BASE` in its host environment "
        "that overrode the one from credentials, so it had a different key than `.11`. A page rendered by `.11` "
        "and a socket landing on `.12` → signature invalid → \"Subscription rejected\", and the reader silently "
        "gets nothing until a reload. Locally there's one process, so it never shows.\n\n"
        "What didn't help, for the record: the job-based broadcast and a longer proxy timeout (both reverted), "
        "and the adapter was already right.\n\n"
        "Now `SECRET_KEY_BASE` comes from 1Password via `.kamal/secrets` for all hosts. Not done: I didn't remove "
        "the stray variable from `.12`'s host environment — it's now overridden by Kamal's env, but whoever "
        "provisioned the box should clean it up. I also haven't looked at production: it has three hosts and "
        "I'm not sure whether they were provisioned the same way."
    )
    s.turn_end()
    s.user("ok run the full suite + rubocop before I open the PR", wait=40)
    s.bash("bin/rails test 2>&1 | tail -3", '''Finished in 14.882103s, 19.6207 runs/s, 33.0867 assertions/s.
292 runs, 492 assertions, 0 failures, 0 errors, 0 skips''', desc="Full test suite", secs=40)
    s.bash("bin/rubocop", '''Inspecting 214 files
......................................................................................................................................................................................................................

214 files inspected, no offenses detected''', desc="Rubocop", secs=14)
    s.say("All green: 292 runs, no offenses.")
    s.turn_end()
    s.user(
        "nice. prod I'll check with Priya tomorrow, she set up those boxes. "
        "and someone should add a deploy hook that compares the key digest across hosts, but not now",
        wait=60,
    )
    s.say("Noted — both left for later; nothing else changed.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Rails 7.1 + Hotwire (turbo-rails 1.5, Action Cable postgresql adapter) deployed with Kamal 2 on two hosts, English",
        "a long hunt with three false leads (async adapter, job-based broadcast, proxy timeout), two deployed and reverted",
        "sticky sessions refused with a story (Black Friday); the decision's why only in that earlier message",
        "compaction in the middle of the hunt",
        "a test failing behind `| tail` (assert_turbo_stream_broadcasts needs turbo-rails 2.0), plain assert_broadcasts instead",
        "cause (different secret_key_base on one host, signed stream names) explained after the fix",
        "a commit + deploy rejected with a preference (shorter commit messages) and a check first",
        "not done in the wrap-up; todo and question said by the user at the end",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["sticky sessions"], ["black friday"]],
         "note": "No sticky sessions on the load balancer: they bit us during the Black Friday scale-up when one box got all the traffic."},
        {"id": "b1", "type": "bug_note",
         "match": [["secret_key_base", "SECRET_KEY_BASE"], ["subscription rejected", "rejected", "signed"], ["10.20.0.12", ".12"]],
         "note": "Live comments lost on staging: host 10.20.0.12 had a stray SECRET_KEY_BASE in its env, so signed Turbo stream names from pages rendered on .11 were rejected."},
        {"id": "d1", "type": "decision",
         "match": [["SECRET_KEY_BASE"], [".kamal/secrets", "1Password"], ["sticky", "drift", "stateless"]],
         "note": "SECRET_KEY_BASE now comes from 1Password via .kamal/secrets for every host, so no box can drift; stateless, no sticky sessions."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["broadcast_append_later_to", "job"], ["no change", "wasn't it", "reverted", "Reverting"]],
         "note": "Moving the broadcast to a job (broadcast_append_later_to) changed nothing on staging; reverted."},
        {"id": "f2", "type": "failed_attempt",
         "match": [["response_timeout", "timeout"], ["120"]],
         "note": "Raising kamal-proxy response_timeout from 30 to 120 changed nothing; reverted."},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "failed_attempt", "project_fact"],
         "match": [["assert_turbo_stream_broadcasts"], ["2.0", "1.5", "assert_broadcasts"]],
         "note": "assert_turbo_stream_broadcasts only exists from turbo-rails 2.0 (we're on 1.5); use assert_broadcasts with Turbo::StreamsChannel.broadcasting_for."},
        {"id": "p1", "type": "preference", "types": ["preference", "constraint"],
         "match": [["commit message"], ["one line", "shorter", "PR"]],
         "note": "Shorter commit messages, one line; the why goes in the PR."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["prod"], ["Priya"]],
         "note": "Does production (three hosts) have the same mismatch? Marcus checks with Priya tomorrow, she set up the boxes."},
        {"id": "t1", "type": "todo",
         "match": [["deploy hook"], ["digest"]],
         "note": "Someone should add a deploy hook comparing the secret_key_base digest across hosts; not now."},
        {"id": "t2", "type": "todo", "required": False,
         "match": [["stray", "host environment"], ["clean", "remove"]],
         "note": "The stray SECRET_KEY_BASE in 10.20.0.12's host environment should be removed by whoever provisioned it."},
        {"id": "v1", "type": "verified_command", "command": "bin/rails test"},
        {"id": "v2", "type": "verified_command", "command": "bin/rubocop"},
        {"id": "v3", "type": "verified_command", "command": "bin/rails test test/models/comment_test.rb", "required": False},
        {"id": "v4", "type": "verified_command", "command": "bin/rails test test/models", "required": False},
    ],
    "secrets": [],
    "forbidden": [["This session is being continued"], ["doesn't want to proceed"]],
}
