# ruff: noqa: E501  (verbatim command output and file contents)
"""PySpark nightly job with a skewed left join on NULL keys; background runs and <task-notification>s; a wrap-up saying what was not done (Russian)."""

from make_sessions import Session

JOB = '''from pyspark.sql import DataFrame, SparkSession, functions as F

from jobs.common import load_conf


def build_sessions(events: DataFrame, users: DataFrame) -> DataFrame:
    enriched = events.join(users, on="user_id", how="left")
    return (
        enriched.groupBy("session_id", "user_id", "country", "plan")
        .agg(F.min("ts").alias("started_at"), F.max("ts").alias("ended_at"), F.count("*").alias("events"))
    )


def main(date: str, sample: float | None = None) -> None:
    conf = load_conf("conf/nightly.yaml")
    spark = SparkSession.builder.appName("nightly_sessions").config(map=conf["spark"]).getOrCreate()
    events = spark.read.parquet(f"{conf['paths']['events']}/dt={date}")
    if sample:
        events = events.sample(fraction=sample, seed=7)
    users = spark.read.parquet(conf["paths"]["users"])
    build_sessions(events, users).write.mode("overwrite").parquet(f"{conf['paths']['sessions']}/dt={date}")
'''

CONF = '''spark:
  spark.sql.adaptive.enabled: "true"
  spark.sql.adaptive.skewJoin.enabled: "true"
  spark.sql.shuffle.partitions: "200"
paths:
  events: s3a://lake-prod/raw/events
  users: s3a://lake-prod/dim/users
  sessions: s3a://lake-prod/mart/sessions
'''

TEST = '''from jobs.nightly_sessions import build_sessions


def test_anonymous_events_kept(spark):
    events = spark.createDataFrame(
        [("s1", "u1", 1), ("s1", "u1", 2), ("s2", None, 5)], "session_id string, user_id string, ts long"
    )
    users = spark.createDataFrame([("u1", "RU", "pro")], "user_id string, country string, plan string")
    out = {r.session_id: r for r in build_sessions(events, users).collect()}
    assert out["s1"].country == "RU" and out["s1"].events == 2
    assert out["s2"].user_id is None and out["s2"].events == 1
'''


def build() -> Session:
    s = Session("pyspark-skew-nulls-ru", cwd="/home/artem/work/dwh-jobs", branch="fix/nightly-sessions-skew",
                start="2026-03-18T07:48:55.402Z", version="2.1.58", slug="skewed-null-walrus")
    s.user(
        "nightly_sessions вчера шла 3 ч 10 мин вместо обычных 40. в Spark UI одна таска в стейдже джойна висит почти два часа, остальные 199 по минуте. "
        "посмотри плз. только без питоновских UDF, они у нас уже два раза клали кластер. и все настройки спарка в conf/nightly.yaml, не в коде",
        wait=4,
    )
    s.call(s.read_call("jobs/nightly_sessions.py", JOB), s.read_call("conf/nightly.yaml", CONF))
    s.say(
        "Одна таска из 200 — классический перекос по ключу джойна. AQE с `skewJoin` включён, но он "
        "режет перекошенные партиции только для inner-стороны и не всегда для left join. Сначала "
        "посмотрю распределение `user_id` на выборке за вчера."
    )
    s.bash("python -m jobs.tools.key_histogram --path s3a://lake-prod/raw/events/dt=2026-03-17 --key user_id --top 4 --sample 0.02", '''key                 rows      share
<NULL>              4218337   38.4%
u_000000            611902    5.6%
u_8f21c0            2214      0.0%
u_1b77e4            2107      0.0%
total (sample 2%)   10985120''', desc="Распределение user_id (выборка 2%)", secs=95)
    s.say(
        "Вот оно: 38 % событий с `user_id = NULL` (анонимные — до логина). При left join все NULL-ключи "
        "хешируются в одну партицию, и одна таска тащит треть всех событий. Совпасть с `users` они "
        "всё равно не могут — NULL ни с чем не равен.\n\n"
        "Ещё `u_000000` — 5.6 %, похоже на служебного бота; это второй, меньший перекос."
    )
    s.turn_end()
    s.user("анонимные выросли после запуска нового лендинга на прошлой неделе, логично. что предлагаешь", wait=60)
    s.say(
        "Первое, что обычно пробуют, — больше партиций. Прогоню локально на 5 % выборки с "
        "`spark.sql.shuffle.partitions=800` (через переменную окружения, в конфиг не пишу) и сравню "
        "самую долгую таску."
    )
    t1 = s.bash_bg("SPARK_CONF_OVERRIDE='spark.sql.shuffle.partitions=800' spark-submit --master 'local[8]' jobs/nightly_sessions.py --date 2026-03-17 --sample 0.05 --dry-run-output /tmp/ns_800 > /tmp/ns_800.log 2>&1",
                   "Локальный прогон, 800 партиций")
    s.say("Пока он идёт, пишу тест на поведение, которое нельзя сломать: анонимные сессии должны оставаться в выходе.")
    s.write("tests/jobs/test_nightly_sessions.py", TEST)
    s.task_notification(t1, "Локальный прогон, 800 партиций", wait=260)
    s.bash("grep -E 'max task|stage 4' /tmp/ns_800.log", '''stage 4 (join): 800 tasks, median 0.9s, max task 412.7s''', desc="Самая долгая таска")
    s.say(
        "С 800 партициями самая долгая таска всё так же ~410 с (на 200 было 418 с): больше "
        "партиций не помогает, потому что один ключ не делится между партициями — все NULL всё равно "
        "в одной. Откатывать нечего, в конфиг я это не писал.\n\n"
        "Предложение: разделить события на две части — с `user_id` и без. Анонимные в джойне не "
        "участвуют вообще (им просто нечего подтягивать), остальное джойним как раньше, потом "
        "`unionByName`. Это встроенные функции, без UDF."
    )
    s.edit("jobs/nightly_sessions.py", '''    enriched = events.join(users, on="user_id", how="left")''', '''    # Анонимные события (user_id IS NULL, ~38 %) в join не пускаем: совпасть им не с чем, а при
    # hash-партиционировании все NULL попадали в одну таску (nightly 3 ч вместо 40 мин, 2026-03-17).
    known = events.where(F.col("user_id").isNotNull())
    anonymous = events.where(F.col("user_id").isNull())
    enriched = known.join(users, on="user_id", how="left").unionByName(anonymous)''')
    s.bash("pytest tests/jobs/test_nightly_sessions.py -q 2>&1 | tail -6", '''E   pyspark.errors.exceptions.captured.AnalysisException: [NUM_COLUMNS_MISMATCH] UNION can only be performed on inputs with the same number of columns, but the first input has 5 columns and the second input has 3 columns.

FAILED tests/jobs/test_nightly_sessions.py::test_anonymous_events_kept - pyspark.errors.exceptions.captured.AnalysisException: [NUM_COLUMNS_MISMATCH] UNION can on...
1 failed in 14.92s''', desc="Тест", secs=22)
    s.say("У анонимной части нет колонок из `users` (`country`, `plan`). `unionByName` умеет дополнять их NULL-ами с `allowMissingColumns=True`:")
    s.edit("jobs/nightly_sessions.py", '''    enriched = known.join(users, on="user_id", how="left").unionByName(anonymous)''', '''    enriched = known.join(users, on="user_id", how="left").unionByName(anonymous, allowMissingColumns=True)''')
    s.bash("pytest tests/jobs/test_nightly_sessions.py -q", '''.                                                                        [100%]
1 passed in 13.71s''', desc="Тест", secs=20)
    t2 = s.bash_bg("spark-submit --master 'local[8]' jobs/nightly_sessions.py --date 2026-03-17 --sample 0.05 --dry-run-output /tmp/ns_split > /tmp/ns_split.log 2>&1",
                   "Локальный прогон с разделением NULL")
    s.bash("pytest tests/jobs -q && ruff check jobs tests", '''........................... [100%]
27 passed in 41.08s
All checks passed!''', desc="Все тесты джобов + ruff", secs=50)
    s.task_notification(t2, "Локальный прогон с разделением NULL", wait=120)
    s.bash("grep -E 'max task|stage 4' /tmp/ns_split.log && python -m jobs.tools.compare_parquet /tmp/ns_800 /tmp/ns_split --key session_id", '''stage 4 (join): 200 tasks, median 0.8s, max task 31.2s
rows left 1843221, rows right 1843221, diff 0''', desc="Сравнение с прежним результатом", secs=30)
    s.say(
        "Самая долгая таска на выборке: 418 с → 31 с, результат совпадает строка в строку "
        "(`diff 0`, 1 843 221 сессий).\n\n"
        "**Сделано**\n"
        "- `build_sessions`: анонимные события (NULL `user_id`) идут мимо join и добавляются через "
        "`unionByName(..., allowMissingColumns=True)`. Без UDF, конфиг не трогал.\n"
        "- Тест `test_anonymous_events_kept`; `pytest tests/jobs` (27) и `ruff` зелёные.\n\n"
        "**Не сделано — и почему**\n"
        "- На кластере не запускал: отсюда доступа к YARN нет, только локальная выборка 5 %. "
        "Реальное время на полном объёме покажет только ночной прогон или ручной запуск.\n"
        "- `shuffle.partitions` оставил 200: 800 ничего не дало (одна NULL-партиция неделима).\n"
        "- Бот `u_000000` (5.6 %) не трогал: после этой правки его таска на выборке ~31 с, это не "
        "узкое место. Если станет — salting по этому ключу, но мерить надо на полном объёме.\n"
        "- Не проверял, кто ещё читает `mart/sessions` и ждёт там анонимные сессии — схема не "
        "изменилась, так что не должен был ничего сломать."
    )
    s.turn_end()
    s.user(
        "ок, на кластере запущу руками сегодня вечером. бота посмотрим после релиза 2.3, не раньше. "
        "и вообще не уверен, нужны ли анонимные события в sessions хоть кому-то — надо бы спросить у Дины из аналитики",
        wait=130,
    )
    s.say("Понял. Ветка `fix/nightly-sessions-skew` готова к ревью.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "PySpark 3.4 nightly job (AQE, left join, unionByName), pytest with a local SparkSession, Russian",
        "two rules with reasons in the first prompt (no Python UDFs: killed the cluster twice; Spark settings only in conf/nightly.yaml)",
        "skew diagnosed from a key histogram: 38% NULL user_id after a new landing page",
        "shuffle.partitions 800 tried in a background run (<task-notification>), no effect, told in text",
        "NUM_COLUMNS_MISMATCH on union behind `| tail`, allowMissingColumns, then passing; a second background run compared",
        "a wrap-up listing what was NOT done and why; todos and an open question in the user's last message",
    ],
    "language": "ru",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["UDF"], ["кластер"]],
         "note": "Без питоновских UDF: они уже два раза клали кластер."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["conf/nightly.yaml"], ["не в коде", "настройки"]],
         "note": "Все настройки Spark — в conf/nightly.yaml, не в коде."},
        {"id": "b1", "type": "bug_note",
         "match": [["NULL"], ["user_id"], ["одну партицию", "одна таска", "одну таску", "38"]],
         "note": "nightly_sessions шла 3 ч: 38 % событий с user_id NULL (анонимные, новый лендинг) при left join попадали в одну партицию."},
        {"id": "d1", "type": "decision",
         "match": [["анонимн", "NULL"], ["unionByName"], ["нечего", "не с чем", "ни с чем"]],
         "note": "Анонимные события идут мимо join и добавляются через unionByName: совпасть с users им всё равно не с чем."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["shuffle.partitions", "800"], ["не помогает", "ничего не дало"]],
         "note": "spark.sql.shuffle.partitions=800 не помогло: один ключ не делится между партициями."},
        {"id": "b2", "type": "bug_note", "required": False,
         "match": [["allowMissingColumns"], ["NUM_COLUMNS_MISMATCH", "колонок"]],
         "note": "unionByName без allowMissingColumns=True падает (NUM_COLUMNS_MISMATCH): у анонимной части нет колонок users."},
        {"id": "t1", "type": "todo",
         "match": [["кластер"], ["вечером", "руками"]],
         "note": "На кластере правку не запускали; Артём запустит руками сегодня вечером."},
        {"id": "t2", "type": "todo",
         "match": [["u_000000", "бот"], ["2.3"]],
         "note": "Бот u_000000 (5.6 %) — посмотреть после релиза 2.3, возможно salting."},
        {"id": "q1", "type": "open_question",
         "match": [["анонимные"], ["Дины", "аналитик"]],
         "note": "Нужны ли анонимные события в sessions кому-нибудь? Спросить у Дины из аналитики."},
        {"id": "v1", "type": "verified_command", "command": "pytest tests/jobs/test_nightly_sessions.py -q"},
        {"id": "v2", "type": "verified_command", "command": "pytest tests/jobs -q && ruff check jobs tests"},
    ],
    "secrets": [],
    "forbidden": [["task-notification"], ["output-file"]],
}
