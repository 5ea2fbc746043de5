# ruff: noqa: E501  (verbatim command output and file contents)
"""Unity C# bullet pooling done by a Task subagent; a rule in passing; an implicit todo (English)."""

from make_sessions import Call, Session

AGENT_PROMPT = """Replace Instantiate/Destroy of bullets with pooling in Assets/Scripts/Weapons.
- Use UnityEngine.Pool.ObjectPool<Bullet> (Unity 2022.3), owned by BulletSpawner.
- Bullet gets a Release callback instead of Destroy(gameObject) on hit/lifetime end.
- Reset Rigidbody velocity and TrailRenderer on Get.
- Do not use FindObjectOfType anywhere in Update/FixedUpdate (project rule).
- Add an EditMode test for the pool's reuse. Report every file you changed."""

AGENT_REPORT = """Done. Changes:

1. **Assets/Scripts/Weapons/BulletSpawner.cs** — owns `ObjectPool<Bullet>` (defaultCapacity 64, maxSize 256, collectionCheck on in the Editor only). `Fire()` now calls `_pool.Get()`; `actionOnGet` resets `Rigidbody.velocity`/`angularVelocity` and calls `TrailRenderer.Clear()`; `actionOnRelease` deactivates the object.
2. **Assets/Scripts/Weapons/Bullet.cs** — new `Init(IObjectPool<Bullet> pool)`; `Destroy(gameObject)` in `OnCollisionEnter` and the lifetime coroutine replaced by `_pool.Release(this)`. Added a `_released` guard because a bullet hitting two colliders in one physics step would be released twice (ObjectPool throws "Trying to release an object that has already been released to the pool").
3. **Assets/Scripts/Weapons/Bullet.cs** — the cached `GameManager` lookup moved from `Update` (`FindObjectOfType<GameManager>()` every frame) to `Awake`.
4. **Assets/Tests/EditMode/BulletPoolTests.cs** — `Get_AfterRelease_ReturnsSameInstance` and `Release_Twice_DoesNotThrow`.

I could not run the Unity test runner from here (no Unity in the subagent's PATH)."""

TEST_FAIL = """<?xml version="1.0" encoding="utf-8"?>
<test-run id="2" testcasecount="19" result="Failed(Child)" total="19" passed="18" failed="1" inconclusive="0" skipped="0">
  <test-case name="Get_AfterRelease_ReturnsSameInstance" fullname="Weapons.Tests.BulletPoolTests.Get_AfterRelease_ReturnsSameInstance" result="Failed">
    <failure><message><![CDATA[  Expected: same as <Bullet(Clone) (Bullet)>
  But was:  <Bullet(Clone) (Bullet)>
]]></message>"""


def build() -> Session:
    s = Session("unity-pooling-subagent-en", cwd="/Users/dev/projects/skyward", branch="perf/bullet-pool",
                start="2026-03-25T16:02:44.118Z", version="2.1.58", slug="swift-pooling-kestrel",
                stop_reasons=True)
    s.user(
        "profiler shows GC spikes every time the minigun fires, it's Instantiate/Destroy on "
        "bullets. pool them. use a subagent for the grunt work, I want to keep this context "
        "small",
        wait=5,
    )
    s.glob("Assets/Scripts/Weapons/*.cs", ["Assets/Scripts/Weapons/Bullet.cs",
                                           "Assets/Scripts/Weapons/BulletSpawner.cs",
                                           "Assets/Scripts/Weapons/Minigun.cs"])
    s.user_text_block("oh and we never call FindObjectOfType in Update here, it's in the code review checklist", wait=9)
    s.say("Noted — I'll pass that to the subagent as a hard rule. Delegating the pooling now.")
    s.call(Call("Task", {"description": "Pool bullets with ObjectPool", "prompt": AGENT_PROMPT,
                         "subagent_type": "general-purpose"},
                [{"type": "text", "text": AGENT_REPORT},
                 {"type": "text", "text": "agentId: a5c21f7 (for resuming to continue this agent's work if needed)"}],
                {"status": "completed", "prompt": AGENT_PROMPT, "agentId": "a5c21f7",
                 "content": [{"type": "text", "text": AGENT_REPORT}], "totalDurationMs": 214730,
                 "totalTokens": 48211, "totalToolUseCount": 23,
                 "usage": {"input_tokens": 9, "cache_creation_input_tokens": 5120,
                           "cache_read_input_tokens": 41877, "output_tokens": 1205}}, secs=215))
    s.bash("/Applications/Unity/Hub/Editor/2022.3.41f1/Unity.app/Contents/MacOS/Unity -batchmode -projectPath . -runTests -testPlatform EditMode -testResults /tmp/editmode.xml -logFile /tmp/unity.log; head -8 /tmp/editmode.xml",
           TEST_FAIL, desc="Run EditMode tests", secs=150)
    s.call(s.read_call("Assets/Tests/EditMode/BulletPoolTests.cs", '''using NUnit.Framework;
using UnityEngine;
using UnityEngine.Pool;

namespace Weapons.Tests
{
    public class BulletPoolTests
    {
        [Test]
        public void Get_AfterRelease_ReturnsSameInstance()
        {
            var prefab = new GameObject("Bullet").AddComponent<Bullet>();
            var pool = new ObjectPool<Bullet>(() => Object.Instantiate(prefab));
            var first = pool.Get();
            pool.Release(first);
            Assert.AreSame(first, pool.Get());
        }
    }
}
'''))
    s.say(
        "The subagent's test is wrong, not the pool: `ObjectPool` was built without "
        "`actionOnRelease`, and `Bullet.OnDisable` isn't called in EditMode, so `Release` "
        "ran `Bullet.Init`'s `_released` guard path… Actually simpler: the test never calls "
        "`bullet.Init(pool)`, so `Release` goes through `_pool == null` and the bullet's own "
        "`Release` makes a fresh pool entry. The test must build the pool the way "
        "`BulletSpawner` does. I'll make it use `BulletSpawner.CreatePool` instead of a hand-made pool."
    )
    s.edit("Assets/Tests/EditMode/BulletPoolTests.cs", '''            var pool = new ObjectPool<Bullet>(() => Object.Instantiate(prefab));''',
           '''            var pool = BulletSpawner.CreatePool(prefab, parent: null);''')
    s.bash("/Applications/Unity/Hub/Editor/2022.3.41f1/Unity.app/Contents/MacOS/Unity -batchmode -projectPath . -runTests -testPlatform EditMode -testResults /tmp/editmode.xml -logFile /tmp/unity.log; head -2 /tmp/editmode.xml",
           '''<?xml version="1.0" encoding="utf-8"?>
<test-run id="2" testcasecount="19" result="Passed" total="19" passed="19" failed="0" inconclusive="0" skipped="0">''',
           desc="Run EditMode tests", secs=140)
    s.say(
        "EditMode suite green (19/19). Summary:\n- bullets come from `ObjectPool<Bullet>` in "
        "`BulletSpawner` (64/256), released on hit or lifetime end, with a `_released` guard "
        "against double release when a bullet hits two colliders in one step\n- the per-frame "
        "`FindObjectOfType<GameManager>()` in `Bullet.Update` moved to `Awake`\n\n"
        "I haven't profiled it in Play mode — worth one look at the GC column with the minigun."
    )
    s.turn_end()
    s.user(
        "spikes gone in the profiler. enemy projectiles still Instantiate, I haven't wired the "
        "pool into EnemySpawner yet, leave it",
        wait=300,
    )
    s.say("Leaving EnemySpawner alone.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Unity 2022.3 C#, English, terse user",
        "the edits done by a Task subagent: only its prompt and report are in the main transcript",
        "a rule sent as an extra user message right after the prompt ('we never call FindObjectOfType in Update here')",
        "Unity batchmode test run with a presentation `; head` tail: a failing XML report then a passing one",
        "the agent reasoning aloud and correcting itself mid-reply",
        "an implicit todo at the end ('I haven't wired the pool into EnemySpawner yet, leave it')",
        "stop_reason on final blocks",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["FindObjectOfType"], ["Update"]],
         "note": "Never call FindObjectOfType in Update (it's on the code-review checklist); Bullet's GameManager lookup moved to Awake."},
        {"id": "d1", "type": "decision",
         "match": [["ObjectPool"], ["BulletSpawner"], ["GC", "Instantiate"]],
         "note": "Bullets come from a UnityEngine.Pool.ObjectPool<Bullet> owned by BulletSpawner (64/256) instead of Instantiate/Destroy, because of GC spikes when the minigun fires."},
        {"id": "b1", "type": "bug_note",
         "match": [["_released", "released twice", "already been released"], ["two colliders", "double release"]],
         "note": "A bullet hitting two colliders in one physics step was released twice (ObjectPool throws); Bullet has a _released guard."},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "failed_attempt"], "required": False,
         "match": [["Get_AfterRelease_ReturnsSameInstance", "BulletPoolTests"], ["CreatePool", "hand-made pool", "Init"]],
         "note": "The subagent's pool test built its own pool without Init(pool), so it failed; it now uses BulletSpawner.CreatePool."},
        {"id": "t1", "type": "todo",
         "match": [["EnemySpawner"], ["pool", "Instantiate"]],
         "note": "Enemy projectiles still Instantiate: the pool isn't wired into EnemySpawner yet (user will do it; leave it)."},
        {"id": "v1", "type": "verified_command",
         "command": "/Applications/Unity/Hub/Editor/2022.3.41f1/Unity.app/Contents/MacOS/Unity -batchmode -projectPath . -runTests -testPlatform EditMode -testResults /tmp/editmode.xml -logFile /tmp/unity.log; head -2 /tmp/editmode.xml"},
    ],
    "secrets": [],
    "forbidden": [["agentId:"], ["for resuming to continue this agent"]],
}
