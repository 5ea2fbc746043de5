# ruff: noqa: E501  (verbatim command output and file contents)
"""Godot 4 / GDScript inventory: a terse user with rules in passing; a wrong fix redone (Polish)."""

from make_sessions import Session

INVENTORY = '''extends Node
class_name Inventory

signal item_added(item: ItemData, slot: int)

const SLOTS := 24

var items: Array[ItemData] = []


func _ready() -> void:
	items.resize(SLOTS)


func add(item: ItemData) -> int:
	for i in SLOTS:
		if items[i] == null:
			items[i] = item
			item_added.emit(item, i)
			return i
	return -1
'''

PICKUP = '''extends Area3D

@export var item: ItemData


func _ready() -> void:
	body_entered.connect(_on_body_entered)


func _on_body_entered(body: Node3D) -> void:
	if body.is_in_group("player"):
		body.get_node("Inventory").add(item)
		queue_free()
'''

HUD = '''extends Control

@onready var grid: GridContainer = $Grid


func bind(inventory: Inventory) -> void:
	inventory.item_added.connect(_on_item_added)


func _on_item_added(item: ItemData, slot: int) -> void:
	var cell := grid.get_child(slot) as TextureRect
	cell.texture = item.icon
'''

PLAYER_TSCN_GREP = '''scenes/player.tscn:14:[node name="Inventory" type="Node" parent="."]
scenes/player.tscn:15:script = ExtResource("4_inv")
scenes/level_01.tscn:31:[node name="Inventory" type="Node" parent="Player"]
scenes/level_01.tscn:32:script = ExtResource("7_inv")'''


def build() -> Session:
    s = Session("godot-inventory-pl", cwd="/home/marta/gry/mgla", branch="ekwipunek",
                start="2026-04-02T19:12:40.311Z", version="2.1.62", slug="quiet-forging-lantern")
    s.user(
        "podnoszenie przedmiotów dodaje je do ekwipunku podwójnie. czasem. zrób coś z tym",
        wait=6,
    )
    s.call(s.read_call("scripts/inventory.gd", INVENTORY),
           s.read_call("scripts/pickup.gd", PICKUP),
           s.read_call("ui/hud.gd", HUD))
    s.say(
        "Podejrzewam `body_entered`: gdy gracz wchodzi w obszar kilkoma kształtami kolizji "
        "(kapsuła + stopy), sygnał przychodzi dwa razy w tej samej klatce, zanim `queue_free()` "
        "usunie węzeł. Dodam flagę `_taken`, żeby drugi sygnał nic nie robił."
    )
    s.edit("scripts/pickup.gd", '''@export var item: ItemData
''', '''@export var item: ItemData

var _taken := false
''')
    s.edit("scripts/pickup.gd", '''	if body.is_in_group("player"):
		body.get_node("Inventory").add(item)''', '''	if _taken or not body.is_in_group("player"):
		return
	_taken = true
	body.get_node("Inventory").add(item)''')
    s.bash("godot --headless -s addons/gut/gut_cmdln.gd -gdir=res://test -gexit 2>&1 | tail -6", """\
Totals
Scripts:          6
Tests:            31
Passing Tests:    31
Asserts:          88
---- All tests passed! ----""", desc="Testy GUT", secs=14)
    s.say("Testy przechodzą. Flaga blokuje podwójne `add()` z jednego pickupa.")
    s.turn_end()

    s.user(
        "nadal się dubluje. i hud pokazuje ikonę w dwóch slotach. aha, i u nas nie używamy "
        "autoloadów do stanu gry, więc nie wpadnij na pomysł singletona Inventory",
        wait=140,
    )
    s.think("If the HUD shows the icon in two slots, add() ran twice with different slots - two Inventory nodes? Or item_added connected twice. Let me look for Inventory nodes in scenes.")
    s.grep('name="Inventory"', content=PLAYER_TSCN_GREP, glob="*.tscn")
    s.say(
        "Moja poprawka była chybiona — to nie podwójny sygnał z pickupa. Węzeł `Inventory` "
        "istnieje dwa razy: w `player.tscn` i drugi raz, ręcznie dodany pod `Player` w "
        "`level_01.tscn`. Jeden pickup trafia do jednego, ale HUD jest podpięty do obu "
        "(`bind()` woła się z poziomu i z gracza), więc każde `item_added` maluje ikonę dwa razy, "
        "a w poziomie 1 `get_node(\"Inventory\")` czasem zwraca ten drugi.\n\n"
        "Usuwam duplikat z `level_01.tscn` i cofam flagę `_taken`. Singletona nie będzie — "
        "ekwipunek zostaje węzłem w scenie gracza."
    )
    s.edit("scripts/pickup.gd", '''	if _taken or not body.is_in_group("player"):
		return
	_taken = true
	body.get_node("Inventory").add(item)''', '''	if body.is_in_group("player"):
		body.get_node("Inventory").add(item)''')
    s.edit("scripts/pickup.gd", '''@export var item: ItemData

var _taken := false
''', '''@export var item: ItemData
''')
    s.bash("sed -i '31,32d' scenes/level_01.tscn && grep -c 'name=\"Inventory\"' scenes/*.tscn", """\
scenes/level_01.tscn:0
scenes/player.tscn:1""", desc="Usuń zduplikowany węzeł Inventory")
    s.write("test/test_inventory_single.gd", '''extends GutTest

func test_level_has_one_inventory():
	var level = load("res://scenes/level_01.tscn").instantiate()
	add_child_autofree(level)
	var found = level.find_children("Inventory", "", true, false)
	assert_eq(found.size(), 1, "exactly one Inventory node under the level")
''')
    s.bash("godot --headless -s addons/gut/gut_cmdln.gd -gdir=res://test -gexit 2>&1 | tail -6", """\
Totals
Scripts:          7
Tests:            32
Passing Tests:    32
Asserts:          89
---- All tests passed! ----""", desc="Testy GUT", secs=15)
    s.say(
        "Teraz jeden węzeł `Inventory` (tylko w `player.tscn`), nowy test pilnuje, żeby w "
        "poziomie był dokładnie jeden. Flaga `_taken` wycofana — nie była potrzebna."
    )
    s.turn_end()

    s.user(
        "ok działa, sprawdziłam w edytorze. zapisu ekwipunku do pliku jeszcze nie podpięłam, "
        "to jutro. commit",
        wait=200,
    )
    s.bash("git add -A && git commit -qm 'Ekwipunek: jeden węzeł Inventory na gracza, test na duplikat' && git log --oneline -1",
           "4e1d0a7 Ekwipunek: jeden węzeł Inventory na gracza, test na duplikat", desc="Commit")
    s.say("Zrobione: `4e1d0a7`.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Godot 4 / GDScript with GUT tests run headless, Polish, a terse user (lowercase, short)",
        "a rule stated in passing mid-session ('nie używamy autoloadów do stanu gry')",
        "a first fix (_taken flag) that passes the tests but is wrong; the user reports it, the real cause found and the flag reverted",
        "a todo left only implicitly by the user ('zapisu ekwipunku do pliku jeszcze nie podpięłam')",
    ],
    "language": "pl",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["autoload"], ["stan", "singleton", "Inventory"]],
         "note": "U nas nie używa się autoloadów (singletonów) do stanu gry; ekwipunek zostaje węzłem w scenie gracza."},
        {"id": "b1", "type": "bug_note",
         "match": [["Inventory"], ["level_01", "dwa razy", "duplikat"]],
         "note": "Przedmioty dublowały się, bo węzeł Inventory był dwa razy: w player.tscn i ręcznie dodany pod Player w level_01.tscn; duplikat usunięty."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["_taken", "flag"], ["body_entered", "pickup", "chybiona", "wycofan", "cofam"]],
         "note": "Pierwsza poprawka (flaga _taken w pickup.gd przeciw podwójnemu body_entered) była chybiona mimo zielonych testów; wycofana."},
        {"id": "d1", "type": "decision", "required": False,
         "match": [["test_inventory_single", "dokładnie jeden"]],
         "note": "Test GUT test_inventory_single.gd pilnuje, że w level_01 jest dokładnie jeden węzeł Inventory."},
        {"id": "t1", "type": "todo",
         "match": [["zapis"], ["plik"]],
         "note": "Zapis ekwipunku do pliku nie jest jeszcze podpięty (Marta: jutro)."},
        {"id": "v1", "type": "verified_command",
         "command": "godot --headless -s addons/gut/gut_cmdln.gd -gdir=res://test -gexit"},
    ],
    "secrets": [],
    "forbidden": [],
}
