# ruff: noqa: E501  (verbatim command output and file contents)
"""Review of a Julia PR (rolling median for sensor data): the findings are the knowledge; a review in the wrong language corrected; posting refused (Russian)."""

from make_sessions import Session

CONTRIB = '''# Contributing to Datchiki.jl

- Compat: Julia 1.9 (LTS on the lab machines). Nothing that needs 1.10+.
- New dependencies only after Ilya's approval (the lab machines are offline, every package is mirrored by hand).
- Missing readings are skipped, never propagated: use `skipmissing`, never return `missing` from a filter.
- Hot paths must be type-stable; check with `@code_warntype`.
'''

FILTER_JL = '''module Filters

using Statistics
using ShiftedArrays: lag

export rolling_median, process_all

const CACHE = Dict{String,Vector{Float64}}()

"""
    rolling_median(x, w)

Rolling median of `x` with window `w` (centred).
"""
function rolling_median(x::AbstractVector, w::Integer)
    n = length(x)
    h = w ÷ 2
    out = []
    for i in 1+h:n-w
        push!(out, median(x[i-h:i+h]))
    end
    return out
end

function process_all(series::Dict{String,<:AbstractVector}; w=5)
    Threads.@threads for k in collect(keys(series))
        CACHE[k] = rolling_median(series[k], w)
    end
    return CACHE
end

end
'''

SCRATCH = '''using Datchiki.Filters, BenchmarkTools, Test

x = rand(10_000)
@show length(rolling_median(x, 5)) length(x)
@show eltype(rolling_median(x, 5))
@btime rolling_median($x, 5)
@btime [median(@view $x[i-2:i+2]) for i in 3:length($x)-2]
y = [1.0, 2.0, missing, 4.0, 5.0, 6.0, 7.0]
@show rolling_median(y, 3)
'''

REVIEW_RU = '''## Ревью #57 (rolling_median)

**Блокирующее**
1. `out = []` → `Vector{Any}`: функция нестабильна по типам, в ~35 раз медленнее, чем нужно.
2. Цикл `1+h:n-w` теряет точки в конце: для w=5 на 10 000 точек выходит 9 993 значения.
3. `missing` в окне даёт `missing` на выходе — противоречит CONTRIBUTING (skipmissing).
4. Новая зависимость ShiftedArrays (и `lag` нигде не используется) — без согласования с Ильёй.

**Стоит поправить**
5. `CACHE` — глобальный `Dict`, в который пишут из `Threads.@threads`: гонка.
'''

REVIEW_EN = '''## Review of #57 (rolling_median)

**Blocking**
1. `out = []` gives a `Vector{Any}`: `rolling_median` is type-unstable and ~35x slower than it needs to be. Preallocate `similar(x, Float64, …)` or use a comprehension over `@view`s.
2. The loop `1+h:n-w` drops points at the end: for w=5 on 10 000 points you get 9 993 values (should be n-2h = 9 996, or n if edges are padded; see question below).
3. A `missing` inside a window makes the output `missing`. CONTRIBUTING: missing readings are skipped, never propagated (`median(skipmissing(...))`).
4. New dependency ShiftedArrays (and `lag` is never used). New deps need Ilya's approval; please drop it.

**Should fix**
5. `CACHE` is a global `Dict` written from `Threads.@threads`: `Dict` is not thread-safe, this is a data race. Return a fresh Dict built from per-key results instead.

**Question**: what should happen at the edges (shorter output, or shrinking windows)?
'''


def build() -> Session:
    s = Session("julia-pr-review-ru", cwd="/home/olga/work/Datchiki.jl", branch="main",
                start="2026-03-25T09:02:55.771Z", version="2.1.60", slug="median-review-sable")
    s.user(
        "посмотри PR #57 от Димы (скользящая медиана для датчиков). сначала прочитай CONTRIBUTING. только замечания, в его ветку ничего не коммить",
        wait=5,
    )
    s.bash("gh pr view 57 --json title,headRefName,files --jq '.title, .headRefName, (.files[].path)'", '''Add rolling_median filter
dima/rolling-median
Project.toml
src/Filters.jl
test/filters.jl''', desc="О PR")
    s.bash("gh pr checkout 57", '''From github.com:lab-sensors/Datchiki.jl
 * [new branch]      dima/rolling-median -> dima/rolling-median
Switched to branch 'dima/rolling-median' ''', desc="Переключиться на ветку PR")
    s.call(s.read_call("CONTRIBUTING.md", CONTRIB), s.read_call("src/Filters.jl", FILTER_JL))
    s.read("test/filters.jl", '''using Test
using Datchiki.Filters

@testset "filters" begin
    x = Float64[1, 9, 2, 8, 3, 7, 4, 6, 5, 5]
    y = rolling_median(x, 3)
    @test y[1] == 2.0
    @test y[2] == 8.0
    @test y[3] == 3.0
    @test all(isfinite, y)
end
''')
    s.bash("grep -rn 'process_all\\|CACHE' src/ test/ scripts/", '''src/Filters.jl:6:export rolling_median, process_all
src/Filters.jl:8:const CACHE = Dict{String,Vector{Float64}}()
src/Filters.jl:27:function process_all(series::Dict{String,<:AbstractVector}; w=5)
src/Filters.jl:29:        CACHE[k] = rolling_median(series[k], w)
src/Filters.jl:31:    return CACHE
scripts/nightly.jl:14:    smoothed = Filters.process_all(readings; w=7)''', desc="Кто вызывает process_all")
    s.bash("grep -n 'JULIA_NUM_THREADS\\|julia ' scripts/nightly.sh", '''6:export JULIA_NUM_THREADS=4
9:julia --project scripts/nightly.jl "$DATA_DIR"''', desc="С какими потоками идёт ночной прогон")
    s.bash("git diff main -- Project.toml", '''diff --git a/Project.toml b/Project.toml
@@ -5,6 +5,7 @@ version = "0.7.3"
 [deps]
 CSV = "336ed68f-0bac-5ca0-87d4-7b16caf5d00b"
 DataFrames = "a93c6f00-e57d-5684-b7b6-d8193f3e46c0"
+ShiftedArrays = "1277b4bf-5013-50f5-be3d-901d8477a67a"
 Statistics = "10745b16-79ce-11e8-11f9-7d13ad32a3b2"''', desc="Изменения в Project.toml")
    s.bash("julia --project -e 'using Pkg; Pkg.test()' 2>&1 | tail -5", '''ERROR: LoadError: ArgumentError: Package ShiftedArrays not found in current path.
- Run `import Pkg; Pkg.add("ShiftedArrays")` to install the ShiftedArrays package.
Stacktrace:
 [1] macro expansion
   @ ./loading.jl:1767 [inlined]''', desc="Тесты пакета", secs=40)
    s.say("Манифест у меня не обновлён под его ветку. `Pkg.instantiate()` и снова тесты:")
    s.bash("julia --project -e 'using Pkg; Pkg.instantiate()'", '''  Installed ShiftedArrays ─ v2.0.0
Precompiling project...
  3 dependencies successfully precompiled in 9 seconds. 41 already precompiled.''', desc="Pkg.instantiate", secs=25)
    s.bash("julia --project -e 'using Pkg; Pkg.test()' 2>&1 | tail -6", '''     Testing Running tests...
Test Summary: | Pass  Total  Time
filters       |    4      4  0.9s
Test Summary: | Pass  Total  Time
io            |   11     11  1.7s
     Testing Datchiki tests passed ''', desc="Тесты пакета", secs=70)
    s.say(
        "Его тесты зелёные, но они проверяют только значения в середине короткого массива. Читаю код против CONTRIBUTING:\n\n"
        "- `out = []` — это `Vector{Any}`, горячий путь будет нестабилен по типам.\n"
        "- Диапазон `1+h:n-w` подозрительный: верхняя граница должна быть `n-h`.\n"
        "- `median` от окна с `missing` вернёт `missing`.\n"
        "- `using ShiftedArrays: lag` — новая зависимость, а `lag` нигде не вызывается.\n"
        "- `CACHE` — глобальный `Dict`, в него пишут из `Threads.@threads`.\n\n"
        "Ночной прогон (`scripts/nightly.sh`) идёт с `JULIA_NUM_THREADS=4`, так что `@threads` там реально параллельный.\n\n"
        "Первые три хочу показать, а не утверждать. Скрипт в /tmp, в его ветку ничего не кладу:"
    )
    s.write("/tmp/review57.jl", SCRATCH)
    s.bash("julia --project -e 'include(\"/tmp/review57.jl\")' 2>&1 | tail -8", '''length(rolling_median(x, 5)) = 9993
length(x) = 10000
eltype(rolling_median(x, 5)) = Any
  1.214 ms (20015 allocations: 1.42 MiB)
  34.602 μs (2 allocations: 78.17 KiB)
ERROR: LoadError: MethodError: no method matching isless(::Missing, ::Float64)''', desc="Проверка гипотез", secs=35)
    s.say(
        "Подтвердилось, и с одним сюрпризом:\n\n"
        "1. 9 993 значения вместо 9 996 — в конце теряются 3 точки (`n-w` вместо `n-h`).\n"
        "2. `eltype` = `Any`; 1,21 мс и 20 000 аллокаций против 35 мкс у простого comprehension по `@view` — примерно в 35 раз.\n"
        "3. С `missing` хуже, чем я думал: не `missing` на выходе, а `MethodError` — `median` сортирует окно, а `isless(missing, …)` "
        "не определён для смешанного вектора из `getindex`. То есть на реальных данных с пропусками функция просто падает.\n\n"
        "Проверю ещё `@code_warntype`, чтобы в ревью была ссылка на конкретную строку."
    )
    s.bash("julia --project -e 'using Datchiki.Filters, InteractiveUtils; @code_warntype rolling_median(rand(10), 3)' 2>&1 | grep -n 'Any\\|Body'", '''2:Body::Vector{Any}
9:  out::Vector{Any}''', desc="@code_warntype")
    s.say("`Body::Vector{Any}`. Пишу текст ревью:")
    s.write("/tmp/review-57.md", REVIEW_RU)
    s.turn_end()
    s.user(
        "по содержанию отлично. но ревью у нас на английском, в репо есть внешние контрибьюторы. и missing — это MethodError, в тексте у тебя старая версия",
        wait=100,
    )
    s.say("Верно, в пункте 3 осталось моё первое предположение. Переписываю на английском и исправляю missing:")
    s.write("/tmp/review-57.md", REVIEW_EN.replace(
        "3. A `missing` inside a window makes the output `missing`.",
        "3. A `missing` inside a window throws `MethodError: no method matching isless(::Missing, ::Float64)` (median sorts the window).",
    ))
    s.bash("gh pr view 57 --json reviewDecision,reviews --jq '.reviewDecision, (.reviews | length)'", '''REVIEW_REQUIRED
0''', desc="Статус ревью")
    s.say("Публикую как request changes (пункты 1–4 блокирующие):")
    s.bash_rejected("gh pr review 57 --request-changes --body-file /tmp/review-57.md", desc="Опубликовать ревью",
                    reason="не публикуй, я сама. Дима в отпуске до понедельника, поставлю комментарием, не request changes, чтобы ветка не висела красной")
    s.say("Хорошо, не публикую. Текст лежит в `/tmp/review-57.md`. Возвращаюсь на main:")
    s.bash("git checkout main && rm /tmp/review57.jl", "Switched to branch 'main'\nYour branch is up to date with 'origin/main'.", desc="Назад на main")
    s.say(
        "Итог ревью #57 (`/tmp/review-57.md`, на английском):\n\n"
        "**Блокирующее**\n"
        "1. `out = []` → `Vector{Any}`, в ~35 раз медленнее (`@code_warntype`: `Body::Vector{Any}`).\n"
        "2. Диапазон `1+h:n-w` теряет 3 точки в конце (w=5).\n"
        "3. `missing` в окне → `MethodError` в `median`; по CONTRIBUTING нужен `skipmissing`.\n"
        "4. Новая зависимость ShiftedArrays без согласования с Ильёй, к тому же не используется.\n\n"
        "**Стоит поправить**\n"
        "5. Гонка на глобальном `CACHE` из `Threads.@threads`.\n\n"
        "Не сделано: на Julia 1.9 я не запускал (у меня 1.10.2), так что совместимость с 1.9 не проверена; гонку в п. 5 "
        "я не воспроизводил, это вывод по чтению кода."
    )
    s.turn_end()
    s.user(
        "спасибо. про края окна я сама не знаю, как правильно — укорачивать выход или сужать окно. спрошу у Саши из метрологии, как у них принято. "
        "и JET.jl в CI давно пора, чтобы такое ловилось автоматически — после релиза 0.8 займусь",
        wait=120,
    )
    s.say("Понятно, вопрос про края оставил в ревью как вопрос к Диме, без ответа.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Julia package PR review (Pkg.test, BenchmarkTools, @code_warntype), Russian",
        "CONTRIBUTING rules (Julia 1.9 compat, new deps only after Ilya's approval, skipmissing, type-stable hot paths)",
        "a test run failing behind `| tail` on an outdated manifest, Pkg.instantiate, then green",
        "the assistant's findings are the knowledge: Vector{Any} (35x), off-by-one at the end, MethodError on missing (not the expected missing), unused new dependency, data race on a global Dict",
        "a scratch script in /tmp proving the findings (not on the author's branch); review written in Russian corrected to English by the user",
        "posting rejected with the user's reason (author on vacation, comment instead of request changes)",
        "what was NOT checked in the wrap-up; open question for a colleague and a todo after the release",
    ],
    "language": "ru",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["зависимост", "dependenc"], ["Ильёй", "Ilya"]],
         "note": "Новые зависимости только после согласования с Ильёй (машины в лаборатории офлайн, пакеты зеркалируются вручную)."},
        {"id": "b1", "type": "bug_note",
         "match": [["Vector{Any}"], ["35"]],
         "note": "PR #57: out = [] делает rolling_median нестабильной по типам (Vector{Any}), примерно в 35 раз медленнее."},
        {"id": "b2", "type": "bug_note",
         "match": [["n-w", "9 993", "9993"], ["n-h", "3 точки", "drops points"]],
         "note": "PR #57: цикл 1+h:n-w теряет точки в конце (9 993 вместо 9 996 при w=5); граница должна быть n-h."},
        {"id": "b3", "type": "bug_note",
         "match": [["missing"], ["MethodError", "isless"]],
         "note": "PR #57: missing в окне даёт MethodError (isless(::Missing, ::Float64)) в median, функция падает на реальных данных; по CONTRIBUTING пропуски пропускаются (skipmissing)."},
        {"id": "b4", "type": "bug_note", "types": ["bug_note", "constraint"],
         "match": [["ShiftedArrays"], ["lag", "Ильёй", "Ilya"]],
         "note": "PR #57 добавляет зависимость ShiftedArrays без согласования, и lag нигде не используется."},
        {"id": "b5", "type": "bug_note", "required": False,
         "match": [["CACHE"], ["Threads", "гонка", "race"]],
         "note": "Глобальный Dict CACHE заполняется из Threads.@threads: гонка данных (по чтению кода, не воспроизведено)."},
        {"id": "p1", "type": "preference", "types": ["preference", "constraint"],
         "match": [["английском", "English"], ["ревью", "review"], ["внешние контрибьюторы", "контрибьютор"]],
         "note": "Ревью пишем на английском: в репо есть внешние контрибьюторы."},
        {"id": "p2", "type": "preference", "types": ["preference", "decision"],
         "match": [["request changes"], ["отпуск", "комментарием"]],
         "note": "Ревью #57 Ольга публикует сама комментарием, не request changes: Дима в отпуске до понедельника, ветка не должна висеть красной."},
        {"id": "q1", "type": "open_question",
         "match": [["края", "edges"], ["Саш", "метрологи"]],
         "note": "Как обрабатывать края окна (укорачивать выход или сужать окно)? Ольга спросит у Саши из метрологии."},
        {"id": "t1", "type": "todo",
         "match": [["JET"], ["0.8", "CI"]],
         "note": "Добавить JET.jl в CI, чтобы ловить нестабильность типов; после релиза 0.8."},
        {"id": "v1", "type": "verified_command", "command": "julia --project -e 'using Pkg; Pkg.test()'"},
        {"id": "v2", "type": "verified_command", "command": "julia --project -e 'using Pkg; Pkg.instantiate()'", "required": False},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"]],
}
