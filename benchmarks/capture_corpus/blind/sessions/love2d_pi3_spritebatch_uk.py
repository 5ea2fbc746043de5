# ruff: noqa: E501  (verbatim command output and file contents)
"""LÖVE 11.4 (Lua) kiosk game too slow on a Raspberry Pi 3; benchmarks in the background on a dev Pi, AskUserQuestion answered in free text, a kiosk deploy refused (Ukrainian)."""

from make_sessions import Session

TERRAIN = '''local Terrain = {}
Terrain.__index = Terrain

local TILE = 16

function Terrain.new(w, h, atlas)
  local t = setmetatable({ w = w, h = h, atlas = atlas, cells = {} }, Terrain)
  for y = 1, h do
    t.cells[y] = {}
    for x = 1, w do t.cells[y][x] = (y > 6) and 2 or 0 end
  end
  return t
end

function Terrain:dig(x, y)
  if self.cells[y] and self.cells[y][x] then self.cells[y][x] = 1 end
end

function Terrain:draw()
  local aw, ah = self.atlas:getDimensions()
  for y = 1, self.h do
    for x = 1, self.w do
      local c = self.cells[y][x]
      if c > 0 then
        local q = love.graphics.newQuad((c - 1) * TILE, 0, TILE, TILE, aw, ah)
        love.graphics.draw(self.atlas, q, (x - 1) * TILE, (y - 1) * TILE)
      end
    end
  end
end

return Terrain
'''

CONF = '''function love.conf(t)
  t.identity = "krotovyna"
  t.version = "11.4"
  t.window.title = "Кротовина"
  t.window.width = 1280
  t.window.height = 720
  t.window.fullscreen = true
  t.window.vsync = 1
  t.window.msaa = 0
  t.modules.physics = false
end
'''

SPEC = '''local Chunks = require("src.chunks")

describe("Chunks", function()
  it("кожна клітинка належить рівно одному чанку", function()
    local c = Chunks.new(80, 45, 16)
    assert.are.equal(1, c:index_of(1, 1))
    assert.are.equal(1, c:index_of(16, 16))
    assert.are.equal(2, c:index_of(17, 1))
  end)

  it("dig позначає брудним лише свій чанк", function()
    local c = Chunks.new(80, 45, 16)
    c:mark(16, 3)
    assert.are.same({ [1] = true }, c.dirty)
  end)
end)
'''

CHUNKS_V1 = '''-- Ділить поле на чанки 16x16 клітинок; кожен чанк має свій SpriteBatch.
local Chunks = {}
Chunks.__index = Chunks

function Chunks.new(w, h, size)
  local c = setmetatable({ w = w, h = h, size = size, dirty = {} }, Chunks)
  c.cols = math.ceil(w / size)
  c.rows = math.ceil(h / size)
  return c
end

function Chunks:index_of(x, y)
  local cx = math.floor(x / self.size) + 1
  local cy = math.floor(y / self.size) + 1
  return (cy - 1) * self.cols + cx
end

function Chunks:mark(x, y)
  self.dirty[self:index_of(x, y)] = true
end

return Chunks
'''


def build() -> Session:
    s = Session("love2d-pi3-spritebatch-uk", cwd="/home/marta/projects/krotovyna", branch="perf/pi3",
                start="2026-04-02T10:27:51.044Z", version="2.1.61", slug="mole-batch-kestrel")
    s.user(
        "Привіт. Наша гра «Кротовина» в музеї на кіоску гальмує: з третього рівня 12-15 fps, а треба стабільні 30. "
        "Важливо: має працювати на Raspberry Pi 3 (1 ГБ), LÖVE 11.4 з репозиторію Raspberry Pi OS, не 12 — так налаштований кіоск. "
        "У офісі є тестова Пі, kiosk-dev, до неї можна по ssh",
        wait=6,
    )
    s.call(s.read_call("src/terrain.lua", TERRAIN), s.read_call("conf.lua", CONF))
    s.bash("grep -rn 'love.graphics.new' src/ main.lua", '''src/terrain.lua:26:        local q = love.graphics.newQuad((c - 1) * TILE, 0, TILE, TILE, aw, ah)
main.lua:14:  atlas = love.graphics.newImage("assets/tiles.png")
main.lua:15:  mole = love.graphics.newImage("assets/mole.png")''', desc="Де створюються графічні об'єкти")
    s.say(
        "Дві підозри одразу видно в `Terrain:draw`:\n"
        "1. `love.graphics.newQuad` на кожну клітинку **щокадру**: на полі 80×45 це до 3600 нових об'єктів на кадр — сміття, "
        "і на Pi 3 збирач сміття дає ривки.\n"
        "2. Кожна клітинка — окремий `love.graphics.draw`, тобто тисячі draw call'ів; для VideoCore IV це дорого.\n\n"
        "Спочатку заміряю, як є, на kiosk-dev. У грі є `--bench`, запускаю у фоні:"
    )
    b1 = s.bash_bg("ssh pi@kiosk-dev 'cd krotovyna && git fetch -q && git checkout -q perf/pi3 && love . --bench 3 --frames 600'", "Бенчмарк рівня 3 на kiosk-dev (до змін)")
    s.bash("busted spec/ 2>&1 | tail -3", '''●●●●●●●●●●●
11 successes / 0 failures / 0 errors / 0 pending : 0.084211 seconds''', desc="Наявні тести", secs=3)
    s.task_notification(b1, "Бенчмарк рівня 3 на kiosk-dev (до змін)", wait=45)
    s.read(f"/tmp/claude-1000/{s.cwd.replace('/', '-')}/tasks/{b1}.output", '''bench level=3 frames=600
fps avg=14.2 min=6.0 p1=7.8
draw calls/frame avg=2714
gc pauses >8ms: 57
lua mem peak=88.4 MB''')
    s.say(
        "14,2 fps у середньому, мінімум 6, 2714 draw call'ів на кадр і 57 пауз GC довших за 8 мс. Обидві підозри підтверджуються.\n\n"
        "Перший крок — найдешевший: квади створити один раз при завантаженні, а не щокадру."
    )
    s.edit("src/terrain.lua", '''function Terrain.new(w, h, atlas)
  local t = setmetatable({ w = w, h = h, atlas = atlas, cells = {} }, Terrain)''', '''function Terrain.new(w, h, atlas)
  local t = setmetatable({ w = w, h = h, atlas = atlas, cells = {}, quads = {} }, Terrain)
  local aw, ah = atlas:getDimensions()
  for c = 1, aw / TILE do
    t.quads[c] = love.graphics.newQuad((c - 1) * TILE, 0, TILE, TILE, aw, ah)
  end''')
    s.edit("src/terrain.lua", '''  local aw, ah = self.atlas:getDimensions()
  for y = 1, self.h do
    for x = 1, self.w do
      local c = self.cells[y][x]
      if c > 0 then
        local q = love.graphics.newQuad((c - 1) * TILE, 0, TILE, TILE, aw, ah)
        love.graphics.draw(self.atlas, q, (x - 1) * TILE, (y - 1) * TILE)''', '''  for y = 1, self.h do
    for x = 1, self.w do
      local c = self.cells[y][x]
      if c > 0 then
        love.graphics.draw(self.atlas, self.quads[c], (x - 1) * TILE, (y - 1) * TILE)''')
    s.say(
        "Ще спробував вимкнути vsync (`t.window.vsync = 0`), щоб побачити «чисту» швидкість, — на kiosk-dev з'явився розрив "
        "кадру, а fps майже не змінився (15,1), тож повернув `vsync = 1`. Упираємося не в синхронізацію, а в draw call'и."
    )
    s.bash("git commit -qam 'terrain: квади один раз' && git push -q", "", desc="Закомітити й запушити для kiosk-dev")
    b2 = s.bash_bg("ssh pi@kiosk-dev 'cd krotovyna && git pull -q && love . --bench 3 --frames 600'", "Бенчмарк рівня 3 на kiosk-dev (квади)")
    s.task_notification(b2, "Бенчмарк рівня 3 на kiosk-dev (квади)", wait=50)
    s.read(f"/tmp/claude-1000/{s.cwd.replace('/', '-')}/tasks/{b2}.output", '''bench level=3 frames=600
fps avg=19.6 min=15.0 p1=16.2
draw calls/frame avg=2714
gc pauses >8ms: 0
lua mem peak=41.0 MB''')
    s.say(
        "Паузи GC зникли (0), пам'ять удвічі менша, мінімум 15 замість 6 — але в середньому лише 19,6. Тепер вузьке місце — 2714 draw call'ів. "
        "Рішення — `SpriteBatch`: усі плитки одним викликом. Питання в тому, як його оновлювати, бо кріт копає постійно."
    )
    q = "Як перебудовувати SpriteBatch, коли кріт копає?"
    s.ask(
        [{"question": q, "header": "SpriteBatch",
          "options": [("Один батч на все поле", "Просто, але при кожному копанні перебудова всіх 3600 плиток"),
                      ("Батчі по чанках", "Поле ділиться на чанки, перебудовується лише змінений")]}],
        {q: "по чанках 16x16. кріт копає майже щокадру, якщо перебудовувати весь батч щоразу — буде те саме, що зараз. і 16 бо рівні кратні 16"},
    )
    s.say("Добре: чанки 16×16 клітинок, у кожного свій `SpriteBatch`, копання позначає чанк брудним, а `draw` перебудовує лише брудні. Почну з індексації чанків і тестів до неї.")
    s.write("src/chunks.lua", CHUNKS_V1)
    s.write("spec/chunks_spec.lua", SPEC)
    s.bash("busted spec/ 2>&1 | tail -8", '''●●●●●●●●●●●◼◼
11 successes / 2 failures / 0 errors / 0 pending : 0.091377 seconds

Failure → spec/chunks_spec.lua @ 4
Chunks кожна клітинка належить рівно одному чанку
spec/chunks_spec.lua:7: Expected objects to be equal.
Passed in:
(number) 2''', desc="Тести", secs=3)
    s.say(
        "Класична помилка з індексацією з 1: клітинка `x = 16` — остання в першому чанку, але `math.floor(16 / 16) + 1 = 2`. "
        "Для координат, що починаються з 1, треба спершу відняти одиницю: `math.floor((x - 1) / size) + 1`. Через це копання на "
        "правому краю чанка позначало б сусідній чанк, а свій лишався б старим — дірка з'являлася б із запізненням."
    )
    s.edit("src/chunks.lua", '''  local cx = math.floor(x / self.size) + 1
  local cy = math.floor(y / self.size) + 1''', '''  local cx = math.floor((x - 1) / self.size) + 1
  local cy = math.floor((y - 1) / self.size) + 1''')
    s.bash("busted spec/", '''●●●●●●●●●●●●●
13 successes / 0 failures / 0 errors / 0 pending : 0.087902 seconds''', desc="Тести", secs=3)
    s.edit("src/chunks.lua", '''function Chunks:mark(x, y)
  self.dirty[self:index_of(x, y)] = true
end''', '''function Chunks:mark(x, y)
  self.dirty[self:index_of(x, y)] = true
end

-- Перебудовує SpriteBatch лише брудних чанків; cells і quads беруться з Terrain.
function Chunks:rebuild(terrain, tile)
  self.batches = self.batches or {}
  for i in pairs(self.dirty) do
    local b = self.batches[i] or love.graphics.newSpriteBatch(terrain.atlas, self.size * self.size, "dynamic")
    b:clear()
    local cx, cy = (i - 1) % self.cols, math.floor((i - 1) / self.cols)
    for y = cy * self.size + 1, math.min((cy + 1) * self.size, self.h) do
      for x = cx * self.size + 1, math.min((cx + 1) * self.size, self.w) do
        local c = terrain.cells[y][x]
        if c > 0 then b:add(terrain.quads[c], (x - 1) * tile, (y - 1) * tile) end
      end
    end
    self.batches[i] = b
  end
  self.dirty = {}
end

function Chunks:mark_all()
  for i = 1, self.cols * self.rows do self.dirty[i] = true end
end''')
    s.edit("src/terrain.lua", '''local TILE = 16
''', '''local Chunks = require("src.chunks")

local TILE = 16
''')
    s.edit("src/terrain.lua", '''  return t
end

function Terrain:dig(x, y)
  if self.cells[y] and self.cells[y][x] then self.cells[y][x] = 1 end
end''', '''  t.chunks = Chunks.new(w, h, 16)
  t.chunks:mark_all()
  return t
end

function Terrain:dig(x, y)
  if self.cells[y] and self.cells[y][x] then
    self.cells[y][x] = 1
    self.chunks:mark(x, y)
  end
end''')
    s.edit("src/terrain.lua", '''function Terrain:draw()
  for y = 1, self.h do
    for x = 1, self.w do
      local c = self.cells[y][x]
      if c > 0 then
        love.graphics.draw(self.atlas, self.quads[c], (x - 1) * TILE, (y - 1) * TILE)
      end
    end
  end
end''', '''function Terrain:draw()
  self.chunks:rebuild(self, TILE)
  for _, b in pairs(self.chunks.batches) do love.graphics.draw(b) end
end''')
    s.bash("busted spec/ && luacheck src/ main.lua conf.lua", '''●●●●●●●●●●●●●
13 successes / 0 failures / 0 errors / 0 pending : 0.089114 seconds
Checking src/chunks.lua                           OK
Checking src/mole.lua                             OK
Checking src/terrain.lua                          OK
Checking main.lua                                 OK
Checking conf.lua                                 OK

Total: 0 warnings / 0 errors in 5 files''', desc="Тести + luacheck", secs=5)
    s.bash("git add -A && git commit -qm 'terrain: SpriteBatch по чанках 16x16' && git push -q", "", desc="Закомітити й запушити для kiosk-dev")
    b3 = s.bash_bg("ssh pi@kiosk-dev 'cd krotovyna && git pull -q && love . --bench 3 --frames 600'", "Бенчмарк рівня 3 на kiosk-dev (SpriteBatch)")
    s.task_notification(b3, "Бенчмарк рівня 3 на kiosk-dev (SpriteBatch)", wait=50)
    s.read(f"/tmp/claude-1000/{s.cwd.replace('/', '-')}/tasks/{b3}.output", '''bench level=3 frames=600
fps avg=30.0 min=28.0 p1=29.0
draw calls/frame avg=23
gc pauses >8ms: 0
lua mem peak=39.6 MB''')
    s.say("30 fps стабільно (мінімум 28), 23 draw call'и замість 2714. Викладаю на кіоск у музеї:")
    s.bash_rejected("ssh pi@kiosk-muzei 'cd krotovyna && git pull -q && sudo systemctl restart krotovyna'", desc="Оновити кіоск у музеї",
                    reason="ні! кіоск у музеї не чіпаємо, там зараз діти граються. минулого разу рестарт посеред дня — і гра не піднялася до вечора, бо Пі не бачила монітор після перезапуску. оновлюємо тільки в понеділок, коли музей зачинений")
    s.say("Зрозуміло, у музей нічого не викладаю.")
    s.say(
        "Підсумок:\n\n"
        "- Квади створюються один раз у `Terrain.new` (було: ~3600 `newQuad` щокадру → паузи GC).\n"
        "- Поле поділене на чанки 16×16 з власними `SpriteBatch`; `dig` позначає чанк брудним, `draw` перебудовує лише брудні.\n"
        "- Виправлена індексація чанків (`(x - 1) / size`), тести в `spec/chunks_spec.lua`.\n"
        "- Вимкнення vsync нічого не дало, повернуто.\n"
        "- kiosk-dev, рівень 3: 14,2 → 30,0 fps, draw call'и 2714 → 23.\n\n"
        "Не зроблено: кіоск у музеї не оновлено (понеділок). Рівні 4–6 на Pi не міряв — там більше кротів, а кроти малюються "
        "окремо від батчів."
    )
    s.turn_end()
    s.user(
        "супер. в понеділок сама оновлю кіоск. і ще не знаю, чи Пі 3 потягне звук копання поверх цього — Остап робив звук, спитаю його, скільки там каналів",
        wait=75,
    )
    s.say("Добре, тоді зупиняюся тут.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "LÖVE 11.4 (Lua, busted, luacheck) kiosk game on a Raspberry Pi 3, Ukrainian",
        "a limit in the request (Pi 3, 1 GB, LÖVE 11.4 from the OS repository, not 12)",
        "three background benchmarks over ssh on a dev Pi with <task-notification>s and their output files read",
        "newQuad per tile per frame (GC pauses), then SpriteBatch; vsync off tried and reverted, told only in text",
        "AskUserQuestion answered in free text with its reason (chunks 16x16, the mole digs every frame)",
        "a busted test failing behind `| tail` (1-based chunk index off by one), fixed, cause explained",
        "a deploy to the museum kiosk rejected with a story (restart mid-day, monitor not detected); Monday only",
        "todo the user takes (Monday) and a question for a colleague (sound, Ostap)",
    ],
    "language": "uk",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "project_fact"],
         "match": [["Pi 3", "Raspberry Pi 3"], ["11.4"]],
         "note": "Гра має працювати на Raspberry Pi 3 (1 ГБ) з LÖVE 11.4 з репозиторію Raspberry Pi OS, не 12."},
        {"id": "b1", "type": "bug_note",
         "match": [["newQuad"], ["GC", "щокадру"]],
         "note": "Terrain:draw створював newQuad на кожну клітинку щокадру: сміття і паузи GC на Pi 3; квади тепер створюються один раз."},
        {"id": "d1", "type": "decision",
         "match": [["SpriteBatch", "батч"], ["чанк"], ["копає", "щокадру"]],
         "note": "Плитки малюються через SpriteBatch по чанках 16×16, перебудовуються лише брудні чанки, бо кріт копає майже щокадру."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["vsync"], ["розрив", "не змінився", "повернув"]],
         "note": "Вимкнення vsync дало розрив кадру і майже не змінило fps (15,1); повернуто vsync = 1."},
        {"id": "b2", "type": "bug_note",
         "match": [["(x - 1)", "індексац"], ["чанк"]],
         "note": "Індекс чанка для координат з 1 треба рахувати як floor((x - 1) / size) + 1, інакше клітинка 16 потрапляє в сусідній чанк."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["кіоск", "kiosk-muzei"], ["понеділок"]],
         "note": "Кіоск у музеї не чіпати у робочі години: рестарт посеред дня вже лишив гру лежати до вечора; оновлення лише в понеділок, коли музей зачинений."},
        {"id": "x1", "type": "project_fact", "required": False,
         "match": [["kiosk-dev"], ["--bench"]],
         "note": "Тестова Pi 3 в офісі — kiosk-dev (ssh pi@kiosk-dev); гра має режим `love . --bench N --frames 600`."},
        {"id": "t1", "type": "todo",
         "match": [["понеділок"], ["оновлю", "оновити"]],
         "note": "Марта в понеділок сама оновлює кіоск у музеї."},
        {"id": "t2", "type": "todo", "types": ["todo", "open_question"], "required": False,
         "match": [["Рівні 4", "рівні 4"], ["кроти", "Pi"]],
         "note": "Рівні 4–6 на Pi не міряні; кроти малюються окремо від батчів."},
        {"id": "q1", "type": "open_question",
         "match": [["звук"], ["Остап"]],
         "note": "Чи потягне Pi 3 звук копання поверх цього? Марта спитає Остапа, скільки там каналів."},
        {"id": "v1", "type": "verified_command", "command": "busted spec/ && luacheck src/ main.lua conf.lua"},
        {"id": "v2", "type": "verified_command", "command": "busted spec/", "required": False},
        {"id": "v3", "type": "verified_command", "command": "ssh pi@kiosk-dev 'cd krotovyna && git pull -q && love . --bench 3 --frames 600'", "required": False},
    ],
    "secrets": [],
    "forbidden": [["task-notification"], ["doesn't want to proceed"]],
}
