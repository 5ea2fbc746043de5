# ruff: noqa: E501  (verbatim command output and file contents)
"""Lua Neovim plugin: blocking git blame made async for Neovim 0.9, stale blame after edits; a Task subagent writes tests (Russian)."""

from make_sessions import Call, Session

BLAME = '''local M = {}

local cache = {}

local function run_blame(file)
  local out = vim.fn.systemlist({ "git", "blame", "--line-porcelain", file })
  return require("blameline.parse").porcelain(out)
end

function M.for_line(bufnr, lnum)
  local file = vim.api.nvim_buf_get_name(bufnr)
  if not cache[file] then
    cache[file] = run_blame(file)
  end
  return cache[file][lnum]
end

return M
'''

BLAME_V2 = '''local M = {}

-- cache[bufnr] = { tick = changedtick, lines = { [lnum] = info } }
local cache = {}

local function run_blame(file, on_done)
  vim.system({ "git", "blame", "--line-porcelain", file }, { text = true }, function(res)
    if res.code ~= 0 then
      return
    end
    on_done(require("blameline.parse").porcelain(vim.split(res.stdout, "\\n")))
  end)
end

function M.for_line(bufnr, lnum, on_ready)
  local tick = vim.api.nvim_buf_get_changedtick(bufnr)
  local entry = cache[bufnr]
  if entry and entry.tick == tick then
    return entry.lines[lnum]
  end
  local file = vim.api.nvim_buf_get_name(bufnr)
  run_blame(file, vim.schedule_wrap(function(lines)
    cache[bufnr] = { tick = tick, lines = lines }
    on_ready()
  end))
  return nil
end

return M
'''

AGENT_PROMPT = """В /home/artem/code/blameline.nvim (Neovim-плагин на Lua) напиши тесты на plenary.busted для `lua/blameline/parse.lua` (функция `porcelain(lines)` разбирает вывод `git blame --line-porcelain` в таблицу `{ [lnum] = { author, time, summary, sha } }`).
- Файл tests/parse_spec.lua, фикстуры — строками прямо в тесте, без файлов.
- Случаи: обычный коммит; строка, которая ещё не закоммичена (sha из нулей, author "Not Committed Yet"); два подряд блока одного коммита (у второго в porcelain нет author-строк? проверь по реальному выводу `git blame --line-porcelain` в этом репо); summary с не-ASCII.
- Никаких новых зависимостей, только plenary (уже в tests/minimal_init.lua).
- Запусти `make test` и сообщи результат и изменённые файлы. Код плагина не трогай; если найдёшь баг в parse.lua — опиши, но не чини."""

AGENT_REPORT = """Готово.

- **tests/parse_spec.lua** (новый): 5 тестов — обычный коммит, незакоммиченная строка (sha `0000000…`, author `Not Committed Yet`), повтор коммита, summary на кириллице, пустой ввод.
- `--line-porcelain` (в отличие от `--porcelain`) повторяет author/summary для каждой строки, так что для повтора коммита отдельной логики не нужно — проверил на `git blame --line-porcelain lua/blameline/init.lua`.
- Баг в parse.lua нашёл один: `author-time` сохраняется строкой, а `format.lua` делает `os.date("%Y-%m-%d", info.time)` — на Lua 5.1/LuaJIT это работает только благодаря неявному приведению. Не чинил, как просили; в тесте проверяю, что `time` — число, и этот тест сейчас падает.

`make test`: 4 success, 1 failed (`parse author-time is a number`)."""


def build() -> Session:
    s = Session("nvim-blame-subagent-ru", cwd="/home/artem/code/blameline.nvim", branch="async-blame",
                start="2026-08-03T19:27:55.604Z", version="2.1.61", slug="blame-inline-sova", stop_reasons=True)
    s.user(
        "в blameline на больших файлах (3-5к строк) nvim подвисает на полсекунды при открытии, и "
        "ещё после того как вставишь строки, blame показывается для соседней строки. поправь оба",
        wait=7,
    )
    s.call(s.read_call("lua/blameline/blame.lua", BLAME), s.read_call("Makefile", '''NVIM_BIN ?= nvim

test:
	$(NVIM_BIN) --headless --noplugin -u tests/minimal_init.lua \\
		-c "PlenaryBustedDirectory tests/ {minimal_init = 'tests/minimal_init.lua'}"
'''))
    s.say(
        "Обе проблемы в `blame.lua`:\n\n1. `vim.fn.systemlist` синхронный — пока `git blame` "
        "идёт по 5000 строкам, UI стоит.\n2. Кэш по имени файла живёт вечно: после вставки "
        "строки номера сдвигаются, а кэш остался от старой версии, поэтому blame «съезжает» на "
        "соседнюю строку.\n\nДелаю `git blame` асинхронным через `vim.system`, а кэш — по буферу "
        "с `changedtick`: любое изменение буфера делает его устаревшим."
    )
    s.write("lua/blameline/blame.lua", BLAME_V2)
    s.user_text_block("и да, никаких внешних зависимостей кроме plenary, и то только для тестов", wait=20)
    s.say("Понял, только стандартный API Neovim.")
    s.bash("make test 2>&1 | tail -6", '''Testing: 	/home/artem/code/blameline.nvim/tests/blame_spec.lua
Success: 	blame for_line returns nil first, then info after callback
Success: 	blame invalidates after buffer change

Success: 	2
Failed : 	0''', desc="Тесты", secs=9)
    s.bash("cat .github/workflows/ci.yml | grep -A3 matrix", '''    strategy:
      matrix:
        nvim: [v0.9.5, v0.10.2, nightly]
    steps:''', desc="Какие версии Neovim в CI")
    s.bash("NVIM_BIN=~/.local/nvim-0.9.5/bin/nvim make test 2>&1 | tail -8", '''Testing: 	/home/artem/code/blameline.nvim/tests/blame_spec.lua
Fail	||	blame for_line returns nil first, then info after callback
			...artem/code/blameline.nvim/lua/blameline/blame.lua:7: attempt to call field 'system' (a nil value)

Success: 	0
Failed : 	2
Errors : 	0''', desc="Тесты на Neovim 0.9.5", secs=8)
    s.say(
        "На 0.9.5 падает: `vim.system` появился только в Neovim 0.10, а CI гоняет и v0.9.5. "
        "Надо было проверить матрицу до того, как выбирать API."
    )
    s.turn_end()
    s.user(
        "да, 0.9 держим, половина юзеров на ubuntu 24.04 где 0.9.5 из apt. делай через jobstart",
        wait=30,
    )
    s.edit("lua/blameline/blame.lua", '''local function run_blame(file, on_done)
  vim.system({ "git", "blame", "--line-porcelain", file }, { text = true }, function(res)
    if res.code ~= 0 then
      return
    end
    on_done(require("blameline.parse").porcelain(vim.split(res.stdout, "\\n")))
  end)
end''', '''-- jobstart, не vim.system: vim.system есть только с 0.10, а мы поддерживаем 0.9 (Ubuntu 24.04)
local function run_blame(file, on_done)
  local out = {}
  vim.fn.jobstart({ "git", "blame", "--line-porcelain", file }, {
    stdout_buffered = true,
    on_stdout = function(_, data)
      out = data
    end,
    on_exit = function(_, code)
      if code == 0 then
        on_done(require("blameline.parse").porcelain(out))
      end
    end,
  })
end''')
    s.bash("NVIM_BIN=~/.local/nvim-0.9.5/bin/nvim make test 2>&1 | tail -4", '''Success: 	blame invalidates after buffer change

Success: 	2
Failed : 	0''', desc="Тесты на Neovim 0.9.5", secs=8)
    s.bash("make test 2>&1 | tail -3", '''Success: 	2
Failed : 	0
Errors : 	0''', desc="Тесты на текущем Neovim", secs=8)
    s.say("Оба Neovim зелёные. Тестов на сам разбор porcelain нет совсем — отдам их субагенту, чтобы не раздувать контекст:")
    s.call(Call("Task", {"description": "Tests for blame porcelain parser", "prompt": AGENT_PROMPT,
                         "subagent_type": "general-purpose"},
                [{"type": "text", "text": AGENT_REPORT},
                 {"type": "text", "text": "agentId: a3f90c1 (for resuming to continue this agent's work if needed)"}],
                {"status": "completed", "prompt": AGENT_PROMPT, "agentId": "a3f90c1",
                 "content": [{"type": "text", "text": AGENT_REPORT}], "totalDurationMs": 141220,
                 "totalTokens": 28804, "totalToolUseCount": 11,
                 "usage": {"input_tokens": 5, "cache_creation_input_tokens": 3120,
                           "cache_read_input_tokens": 24410, "output_tokens": 1269}}, secs=141))
    s.call(s.read_call("lua/blameline/parse.lua", '''local M = {}

function M.porcelain(lines)
  local result, cur, lnum = {}, {}, nil
  for _, line in ipairs(lines) do
    local sha, _, final = line:match("^(%x+) (%d+) (%d+)")
    if sha and #sha == 40 then
      cur = { sha = sha }
      lnum = tonumber(final)
    elseif line:match("^author ") then
      cur.author = line:sub(8)
    elseif line:match("^author%-time ") then
      cur.time = line:sub(13)
    elseif line:match("^summary ") then
      cur.summary = line:sub(9)
    elseif line:sub(1, 1) == "\\t" then
      result[lnum] = cur
    end
  end
  return result
end

return M
'''))
    s.say(
        "Субагент нашёл реальный баг: `author-time` кладётся строкой. На LuaJIT `os.date` её "
        "молча приводит, но это случайность. Чиню одной строкой."
    )
    s.edit("lua/blameline/parse.lua", '''      cur.time = line:sub(13)''', '''      cur.time = tonumber(line:sub(13))''')
    s.bash("make test 2>&1 | tail -3", '''Success: 	7
Failed : 	0
Errors : 	0''', desc="Тесты", secs=9)
    s.bash("NVIM_BIN=~/.local/nvim-0.9.5/bin/nvim make test 2>&1 | tail -3", '''Success: 	7
Failed : 	0
Errors : 	0''', desc="Тесты на Neovim 0.9.5", secs=9)
    s.bash("stylua --check lua tests && luacheck lua", '''Checking lua/blameline/blame.lua                  OK
Checking lua/blameline/format.lua                 OK
Checking lua/blameline/init.lua                   OK
Checking lua/blameline/parse.lua                  OK

Total: 0 warnings / 0 errors in 4 files''', desc="stylua и luacheck", secs=3)
    s.say(
        "Готово:\n- `git blame` через `vim.fn.jobstart` (асинхронно, работает на 0.9.5 и 0.10), "
        "UI больше не ждёт;\n- кэш по буферу с `changedtick` — после вставки строк blame "
        "пересчитывается и не съезжает;\n- `author-time` теперь число;\n- 7 тестов зелёные на "
        "обоих Neovim, stylua и luacheck чистые.\n\nНа каждый `TextChanged` теперь запускается "
        "новый `git blame` — на 5к строк это ок, но для совсем больших файлов может понадобиться "
        "debounce."
    )
    s.turn_end()
    s.user(
        "норм. debounce потом, README про 0.9 допишу сам. и непонятно что показывать на "
        "незакоммиченных строках, Not Committed Yet или ничего — спрошу в issue #41 у автора запроса",
        wait=100,
    )
    s.say("Хорошо. Сейчас для них показывается `Not Committed Yet` как есть из git.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Neovim plugin in Lua (plenary busted, stylua, luacheck), Russian",
        "decision with its why before a Write (async blame; cache keyed by changedtick)",
        "a rule sent as a second message (no dependencies besides plenary, only for tests)",
        "vim.system failing on the Neovim 0.9.5 CI matrix behind `| tail` (exit 0), then jobstart at the user's word with a reason (Ubuntu 24.04)",
        "a Task subagent writing tests and reporting a bug (author-time as string), fixed in the main context",
        "debounce and README deferred, open question parked in an issue",
        "stop_reason on final blocks",
    ],
    "language": "ru",
    "empty": False,
    "items": [
        {"id": "b1", "type": "bug_note",
         "match": [["changedtick"], ["кэш", "cache"]],
         "note": "Blame съезжал на соседнюю строку после вставки: кэш по имени файла жил вечно; теперь кэш по буферу с changedtick."},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "decision"],
         "match": [["systemlist", "синхронн"], ["jobstart", "асинхрон"]],
         "note": "Подвисание на больших файлах: git blame через синхронный vim.fn.systemlist; теперь асинхронно через jobstart."},
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["plenary"], ["зависимост"]],
         "note": "Никаких внешних зависимостей, кроме plenary, и то только для тестов."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["vim.system"], ["0.9", "0.10"]],
         "note": "vim.system упал на Neovim 0.9.5 (attempt to call field 'system'): он есть только с 0.10."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "project_fact", "decision"],
         "match": [["0.9"], ["ubuntu", "Ubuntu"]],
         "note": "Neovim 0.9 поддерживаем: половина пользователей на Ubuntu 24.04 с 0.9.5 из apt."},
        {"id": "b3", "type": "bug_note",
         "match": [["author-time", "author_time"], ["tonumber", "строк", "число"]],
         "note": "parse.lua сохранял author-time строкой (os.date работал только из-за неявного приведения); теперь tonumber."},
        {"id": "t1", "type": "todo",
         "match": [["debounce"], ["TextChanged", "больш", "потом"]],
         "note": "На каждый TextChanged запускается git blame; debounce — потом."},
        {"id": "t2", "type": "todo", "required": False,
         "match": [["README"], ["0.9"]],
         "note": "Артём сам допишет в README про поддержку 0.9."},
        {"id": "q1", "type": "open_question",
         "match": [["Not Committed Yet", "незакоммичен"], ["#41", "issue"]],
         "note": "Что показывать на незакоммиченных строках (Not Committed Yet или ничего)? Спросить в issue #41."},
        {"id": "v1", "type": "verified_command", "command": "make test"},
        {"id": "v2", "type": "verified_command", "command": "NVIM_BIN=~/.local/nvim-0.9.5/bin/nvim make test"},
        {"id": "v3", "type": "verified_command", "command": "stylua --check lua tests && luacheck lua"},
    ],
    "secrets": [],
    "forbidden": [["agentId:"], ["for resuming to continue this agent"]],
}
