# ruff: noqa: E501  (verbatim command output and file contents)
"""Home Assistant custom integration for a heat pump over Modbus TCP: unsigned int16 (6552.3 °C), one TCP connection per entity every 5 s, coordinator; 20-register read tried (Illegal Data Address); blocking call in the event loop; background pytest (Italian)."""

from make_sessions import Session

SENSOR_PY = '''"""Sensori della pompa di calore Aria HP (Modbus TCP via gateway RS485)."""
from datetime import timedelta

from homeassistant.components.sensor import SensorDeviceClass, SensorEntity
from homeassistant.const import UnitOfTemperature

from .const import CONF_HOST, CONF_PORT, REGISTRI
from .modbus import leggi_registro

SCAN_INTERVAL = timedelta(seconds=5)


async def async_setup_entry(hass, entry, async_add_entities):
    host, port = entry.data[CONF_HOST], entry.data[CONF_PORT]
    async_add_entities(AriaSensor(host, port, chiave, reg) for chiave, reg in REGISTRI.items())


class AriaSensor(SensorEntity):
    _attr_device_class = SensorDeviceClass.TEMPERATURE
    _attr_native_unit_of_measurement = UnitOfTemperature.CELSIUS

    def __init__(self, host, port, chiave, registro):
        self._host, self._port, self._registro = host, port, registro
        self._attr_name = f"Aria HP {chiave.replace('_', ' ')}"
        self._attr_unique_id = f"aria_hp_{chiave}"

    async def async_update(self):
        valore = leggi_registro(self._host, self._port, self._registro)
        self._attr_native_value = valore / 10
'''

MODBUS_PY = '''from pymodbus.client import ModbusTcpClient


def leggi_registro(host: str, port: int, registro: int) -> int:
    client = ModbusTcpClient(host, port=port, timeout=3)
    client.connect()
    try:
        rr = client.read_input_registers(registro, count=1, slave=1)
        return rr.registers[0]
    finally:
        client.close()
'''

CONST_PY = '''DOMAIN = "aria_hp"
CONF_HOST = "host"
CONF_PORT = "port"

# input register (offset da 30001) -> decimi di °C, int16
REGISTRI = {
    "temperatura_esterna": 0,
    "mandata": 1,
    "ritorno": 2,
    "acs": 3,
    "accumulo": 4,
    "evaporatore": 5,
    "scarico_compressore": 6,
    "aspirazione": 7,
    "setpoint_mandata": 8,
    "setpoint_acs": 9,
    "stato_sbrinamento": 15,
    "frequenza_compressore": 16,
}
'''


def build() -> Session:
    s = Session("homeassistant-modbus-pompa-it", cwd="/home/luca/progetti/ha-aria-hp", branch="main",
                start="2026-01-17T10:12:58.404Z", version="2.1.14", slug="coordinator-int16-modbus")
    s.user(
        "la mia integrazione per la pompa di calore (custom_components/aria_hp) stamattina segnava 6552,3 °C di temperatura esterna, fuori c'erano -1. "
        "e l'app del produttore ogni tanto dice \"gateway non raggiungibile\". guarda tu. niente dipendenze nuove oltre pymodbus, deve restare installabile da HACS senza casini",
        wait=5,
    )
    s.call(s.read_call("custom_components/aria_hp/sensor.py", SENSOR_PY),
           s.read_call("custom_components/aria_hp/modbus.py", MODBUS_PY),
           s.read_call("custom_components/aria_hp/const.py", CONST_PY))
    s.say(
        "Due problemi distinti:\n\n"
        "1. **6552,3 °C**: i registri sono `int16` con segno, ma `rr.registers[0]` è sempre senza segno (0–65535). -1,3 °C = -13 "
        "decimi = 65523 in complemento a due → 65523 / 10 = 6552,3. Va convertito: `v - 65536 if v > 32767 else v`.\n"
        "2. **\"gateway non raggiungibile\"**: ci sono 12 sensori e ognuno, ogni 5 secondi (`SCAN_INTERVAL`), apre **una sua "
        "connessione TCP**, legge un registro e chiude. Che gateway è?"
    )
    s.turn_end()
    s.user("un elfin EW11, accetta una connessione TCP alla volta se non sbaglio", wait=35)
    s.say(
        "Allora è quello: 12 connessioni ogni 5 s occupano quasi sempre l'unico slot e l'app del produttore viene rifiutata.\n\n"
        "Propongo:\n"
        "- un solo `DataUpdateCoordinator` per la pompa: ogni 30 s apre **una** connessione, legge tutti i registri e la chiude "
        "subito, così per il resto del tempo lo slot resta libero per l'app;\n"
        "- i sensori diventano `CoordinatorEntity` e leggono dal coordinator, niente polling proprio.\n\n"
        "30 s ti va bene per una pompa di calore?"
    )
    s.turn_end()
    s.user("30 secondi vanno benissimo, la pompa mica cambia in 5 secondi. l'importante è che l'app funzioni", wait=30)
    s.say("Per fare una sola richiesta provo a leggere i 17 registri (0–16) in un blocco unico. Controllo prima sul gateway (solo lettura):")
    s.bash("python scripts/probe.py --host 192.168.1.48 --start 0 --count 17", '''connect 192.168.1.48:8899 ok
read_input_registers(0, count=17, slave=1)
ExceptionResponse(dev_id=1, function_code=132, exception_code=2)
  -> Illegal Data Address''', desc="Lettura di prova sul gateway (input register 0-16)", secs=4)
    s.bash("python scripts/probe.py --host 192.168.1.48 --start 0 --count 10 && python scripts/probe.py --host 192.168.1.48 --start 15 --count 2", '''connect 192.168.1.48:8899 ok
read_input_registers(0, count=10, slave=1)
[65523, 352, 318, 471, 455, 65488, 612, 65471, 350, 480]
connect 192.168.1.48:8899 ok
read_input_registers(15, count=2, slave=1)
[0, 42]''', desc="Lettura in due blocchi", secs=5)
    s.say(
        "Il blocco unico non va: la pompa risponde `Illegal Data Address` perché i registri 10–14 non esistono, e basta un buco "
        "perché tutta la richiesta fallisca. In due blocchi (0–9 e 15–16) funziona: due richieste sulla stessa connessione ogni 30 s. "
        "Si vede anche il 65523 della temperatura esterna (= -1,3 °C).\n\n"
        "Scrivo il coordinator."
    )
    s.write("custom_components/aria_hp/coordinator.py", '''"""Un solo punto di lettura per la pompa: l'EW11 accetta UNA connessione TCP alla volta.

Prima ogni sensore apriva la sua connessione ogni 5 s e l'app del produttore restava fuori
("gateway non raggiungibile"). Ora: una lettura ogni 30 s, connessione chiusa subito dopo.
"""
from datetime import timedelta
import logging

from homeassistant.helpers.update_coordinator import DataUpdateCoordinator, UpdateFailed

from .const import REGISTRI
from .modbus import leggi_blocco

_LOGGER = logging.getLogger(__name__)

# I registri 10-14 non esistono: una lettura unica 0-16 dà Illegal Data Address.
BLOCCHI = ((0, 10), (15, 2))


def int16(v: int) -> int:
    """I registri sono int16 con segno (65523 = -13 decimi = -1,3 °C)."""
    return v - 65536 if v > 32767 else v


class AriaCoordinator(DataUpdateCoordinator[dict[str, float]]):
    def __init__(self, hass, host: str, port: int) -> None:
        super().__init__(hass, _LOGGER, name="aria_hp", update_interval=timedelta(seconds=30))
        self._host, self._port = host, port

    async def _async_update_data(self) -> dict[str, float]:
        grezzi: dict[int, int] = {}
        try:
            for start, count in BLOCCHI:
                for i, v in enumerate(leggi_blocco(self._host, self._port, start, count)):
                    grezzi[start + i] = v
        except Exception as err:  # noqa: BLE001
            raise UpdateFailed(f"lettura Modbus fallita: {err}") from err
        return {chiave: int16(grezzi[reg]) / 10 for chiave, reg in REGISTRI.items()}
''')
    s.edit("custom_components/aria_hp/modbus.py", '''def leggi_registro(host: str, port: int, registro: int) -> int:
    client = ModbusTcpClient(host, port=port, timeout=3)
    client.connect()
    try:
        rr = client.read_input_registers(registro, count=1, slave=1)
        return rr.registers[0]
    finally:
        client.close()''', '''def leggi_blocco(host: str, port: int, start: int, count: int) -> list[int]:
    client = ModbusTcpClient(host, port=port, timeout=3)
    client.connect()
    try:
        rr = client.read_input_registers(start, count=count, slave=1)
        if rr.isError():
            raise IOError(str(rr))
        return rr.registers
    finally:
        client.close()''')
    s.write("custom_components/aria_hp/sensor.py", '''"""Sensori della pompa di calore Aria HP: leggono dal coordinator, nessun polling proprio."""
from homeassistant.components.sensor import SensorDeviceClass, SensorEntity
from homeassistant.const import UnitOfTemperature
from homeassistant.helpers.update_coordinator import CoordinatorEntity

from .const import DOMAIN, REGISTRI


async def async_setup_entry(hass, entry, async_add_entities):
    coordinator = hass.data[DOMAIN][entry.entry_id]
    async_add_entities(AriaSensor(coordinator, chiave) for chiave in REGISTRI)


class AriaSensor(CoordinatorEntity, SensorEntity):
    _attr_device_class = SensorDeviceClass.TEMPERATURE
    _attr_native_unit_of_measurement = UnitOfTemperature.CELSIUS

    def __init__(self, coordinator, chiave):
        super().__init__(coordinator)
        self._chiave = chiave
        self._attr_name = f"Aria HP {chiave.replace('_', ' ')}"
        self._attr_unique_id = f"aria_hp_{chiave}"

    @property
    def native_value(self):
        return self.coordinator.data[self._chiave]
''')
    s.read("tests/test_sensor.py", '''from pytest_homeassistant_custom_component.common import MockConfigEntry

from .conftest import setup_integration


async def test_temperature_sensors(hass, mock_modbus, config_entry):
    await setup_integration(hass, config_entry)
    assert hass.states.get("sensor.aria_hp_mandata").state == "35.2"
''')
    s.edit("tests/test_sensor.py", '''async def test_temperature_sensors(hass, mock_modbus, config_entry):''', '''async def test_temperatura_negativa(hass, mock_modbus, config_entry):
    mock_modbus.registers[0] = 65523  # -1,3 °C in complemento a due
    await setup_integration(hass, config_entry)
    assert hass.states.get("sensor.aria_hp_temperatura_esterna").state == "-1.3"


async def test_una_lettura_per_ciclo(hass, mock_modbus, config_entry):
    await setup_integration(hass, config_entry)
    assert mock_modbus.connections == 2  # due blocchi, non una connessione per sensore


async def test_temperature_sensors(hass, mock_modbus, config_entry):''')
    s.read("custom_components/aria_hp/__init__.py", '''from .const import DOMAIN

PLATFORMS = ["sensor"]


async def async_setup_entry(hass, entry):
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    return True
''')
    s.edit("custom_components/aria_hp/__init__.py", '''from .const import DOMAIN
''', '''from .const import CONF_HOST, CONF_PORT, DOMAIN
from .coordinator import AriaCoordinator
''')
    s.edit("custom_components/aria_hp/__init__.py", '''async def async_setup_entry(hass, entry):
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)''', '''async def async_setup_entry(hass, entry):
    coordinator = AriaCoordinator(hass, entry.data[CONF_HOST], entry.data[CONF_PORT])
    await coordinator.async_config_entry_first_refresh()
    hass.data.setdefault(DOMAIN, {})[entry.entry_id] = coordinator
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)''')
    b1 = s.bash_bg("pytest tests/ -q", "Test dell'integrazione (pytest-homeassistant-custom-component)")
    s.say("La suite con pytest-homeassistant-custom-component ci mette un po' (avvia un'istanza di HA per ogni test), la lascio in background.")
    s.task_notification(b1, "Test dell'integrazione (pytest-homeassistant-custom-component)", status="failed", exit_code=1, wait=95)
    s.read(f"/tmp/claude-1000/{s.cwd.replace('/', '-')}/tasks/{b1}.output", '''.FFF                                                                     [100%]
=================================== FAILURES ===================================
__________________________ test_temperatura_negativa ___________________________

hass = <homeassistant.core.HomeAssistant object at 0x7f2b9c1d3e50>
mock_modbus = <tests.conftest.FakeEW11 object at 0x7f2b9c0a8a10>

    async def test_temperatura_negativa(hass, mock_modbus, config_entry):
        mock_modbus.registers[0] = 65523  # -1,3 °C in complemento a due
>       await setup_integration(hass, config_entry)

tests/test_sensor.py:8: 
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
custom_components/aria_hp/coordinator.py:33: in _async_update_data
    for i, v in enumerate(leggi_blocco(self._host, self._port, start, count)):
custom_components/aria_hp/modbus.py:5: in leggi_blocco
    client.connect()
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
E   RuntimeError: Caught blocking call to connect with args (<socket.socket fd=17, family=2, type=1, proto=6>, ('127.0.0.1', 50217)) inside the event loop by custom integration 'aria_hp' at custom_components/aria_hp/modbus.py, line 5: client.connect() (offender: /usr/lib/python3.12/socket.py, line 836: sock.connect(sa)), please create a bug report at https://github.com/luca-ferri/ha-aria-hp/issues
For developers, please see https://developers.home-assistant.io/docs/asyncio_blocking_operations/#connect

venv/lib/python3.12/site-packages/homeassistant/util/loop.py:136: RuntimeError
___________________________ test_una_lettura_per_ciclo ___________________________
E   RuntimeError: Caught blocking call to connect with args (<socket.socket fd=19, family=2, type=1, proto=6>, ('127.0.0.1', 50217)) inside the event loop by custom integration 'aria_hp' at custom_components/aria_hp/modbus.py, line 5: client.connect()
___________________________ test_temperature_sensors ___________________________
E   RuntimeError: Caught blocking call to connect with args (<socket.socket fd=21, family=2, type=1, proto=6>, ('127.0.0.1', 50217)) inside the event loop by custom integration 'aria_hp' at custom_components/aria_hp/modbus.py, line 5: client.connect()
=========================== short test summary info ============================
FAILED tests/test_sensor.py::test_temperatura_negativa - RuntimeError: Caught blocking call to connect with args (<socket.socket fd=17, ...
FAILED tests/test_sensor.py::test_una_lettura_per_ciclo - RuntimeError: Caught blocking call to connect with args (<socket.socket fd=19, ...
FAILED tests/test_sensor.py::test_temperature_sensors - RuntimeError: Caught blocking call to connect with args (<socket.socket fd=21, ...
1 passed, 3 failed in 41.37s''')
    s.say(
        "Tre test rossi, e il motivo vero è nel mezzo: `Caught blocking call to connect ... inside the event loop`. `ModbusTcpClient` è "
        "il client **sincrono**: chiamato da `_async_update_data` blocca l'event loop di HA. Lo faceva già il vecchio `async_update` "
        "(in produzione HA lo segnala solo come warning nel log, i test lo trasformano in errore). Uso `AsyncModbusTcpClient`, che è "
        "nello stesso pymodbus — nessuna dipendenza nuova."
    )
    s.edit("custom_components/aria_hp/modbus.py", '''from pymodbus.client import ModbusTcpClient


def leggi_blocco(host: str, port: int, start: int, count: int) -> list[int]:
    client = ModbusTcpClient(host, port=port, timeout=3)
    client.connect()
    try:
        rr = client.read_input_registers(start, count=count, slave=1)
        if rr.isError():
            raise IOError(str(rr))
        return rr.registers
    finally:
        client.close()''', '''from pymodbus.client import AsyncModbusTcpClient


async def leggi_blocchi(host: str, port: int, blocchi) -> dict[int, int]:
    """Tutti i blocchi su UNA connessione, chiusa subito dopo (l'EW11 ne accetta una sola)."""
    client = AsyncModbusTcpClient(host, port=port, timeout=3)
    await client.connect()
    try:
        grezzi: dict[int, int] = {}
        for start, count in blocchi:
            rr = await client.read_input_registers(start, count=count, slave=1)
            if rr.isError():
                raise IOError(str(rr))
            grezzi.update({start + i: v for i, v in enumerate(rr.registers)})
        return grezzi
    finally:
        client.close()''')
    s.edit("custom_components/aria_hp/coordinator.py", '''        grezzi: dict[int, int] = {}
        try:
            for start, count in BLOCCHI:
                for i, v in enumerate(leggi_blocco(self._host, self._port, start, count)):
                    grezzi[start + i] = v
        except Exception as err:  # noqa: BLE001''', '''        try:
            grezzi = await leggi_blocchi(self._host, self._port, BLOCCHI)
        except Exception as err:  # noqa: BLE001''')
    s.edit("custom_components/aria_hp/coordinator.py", '''from .modbus import leggi_blocco''', '''from .modbus import leggi_blocchi''')
    s.edit("tests/test_sensor.py", '''    assert mock_modbus.connections == 2  # due blocchi, non una connessione per sensore''', '''    assert mock_modbus.connections == 1  # una connessione per ciclo, non una per sensore
    assert mock_modbus.requests == 2     # due blocchi (0-9, 15-16)''')
    b2 = s.bash_bg("pytest tests/ -q", "Test dell'integrazione dopo AsyncModbusTcpClient")
    s.task_notification(b2, "Test dell'integrazione dopo AsyncModbusTcpClient", wait=70)
    s.read(f"/tmp/claude-1000/{s.cwd.replace('/', '-')}/tasks/{b2}.output", '''....                                                                     [100%]
4 passed in 39.82s''')
    s.say("Verde. Per provarla sulla tua istanza la copio sul Raspberry e riavvio Home Assistant:")
    s.bash_rejected("scp -r custom_components/aria_hp ha@192.168.1.20:/config/custom_components/ && ssh ha@192.168.1.20 'ha core restart'",
                    desc="Copia l'integrazione su HA e riavvia",
                    reason="no, non riavviare HA adesso: alle 14 c'è la lavatrice con l'automazione del fotovoltaico e col riavvio salta. la copio io stasera")
    s.say("Va bene, non tocco l'istanza.")
    s.say(
        "Riepilogo:\n\n"
        "- **6552,3 °C**: registri `int16` letti senza segno; ora `int16()` nel coordinator (65523 → -1,3 °C).\n"
        "- **\"gateway non raggiungibile\"**: 12 sensori × una connessione TCP ogni 5 s sull'EW11, che ne accetta una sola. Ora un "
        "`DataUpdateCoordinator`, una connessione ogni 30 s chiusa subito dopo, sensori come `CoordinatorEntity`.\n"
        "- **Provato e scartato**: un'unica lettura 0–16 → `Illegal Data Address` (10–14 non esistono); due blocchi.\n"
        "- **Bug trovato dai test**: client Modbus sincrono nell'event loop (blocking call); ora `AsyncModbusTcpClient`, sempre pymodbus.\n"
        "- `pytest tests/ -q`: 4 passed. Nessuna dipendenza nuova, `manifest.json` invariato.\n\n"
        "Da verificare sul campo: il registro 15 (`stato_sbrinamento`) stamattina valeva 0; non l'ho visto cambiare."
    )
    s.turn_end()
    s.user(
        "perfetto. stasera la installo e domani mattina, quando fa lo sbrinamento, guardo se il registro 15 cambia davvero. "
        "e chiedo a Marco se col firmware 2.3 della pompa la mappa dei registri è cambiata, mi pare avesse detto qualcosa",
        wait=80,
    )
    s.say("Ok. Se con il 2.3 i registri si spostano, basta aggiornare `REGISTRI` e `BLOCCHI`.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Home Assistant custom integration (pymodbus, pytest-homeassistant-custom-component) for a heat pump behind an Elfin EW11 gateway, Italian",
        "a rule in the first prompt (no new dependencies beyond pymodbus, must stay installable from HACS)",
        "int16 read as unsigned (6552.3 °C for -1.3 °C); one TCP connection per entity every 5 s on a one-connection gateway",
        "a question answered by the user (gateway model, 30 s is fine); coordinator decision with its why",
        "a single 17-register read tried on the gateway, Illegal Data Address, dropped for two blocks",
        "background test run failing with the real error in the middle (blocking call inside the event loop), AsyncModbusTcpClient; second background run green",
        "copy + HA restart rejected with a reason (washing machine automation at 14:00); todo and question for a colleague in the last message",
    ],
    "language": "it",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["dipendenze", "pymodbus"], ["HACS"]],
         "note": "Niente dipendenze nuove oltre pymodbus: l'integrazione deve restare installabile da HACS."},
        {"id": "b1", "type": "bug_note",
         "match": [["int16", "con segno", "complemento a due"], ["6552", "65523"]],
         "note": "I registri sono int16 con segno letti come unsigned: -1,3 °C (65523) diventava 6552,3 °C."},
        {"id": "b2", "type": "bug_note",
         "match": [["EW11", "gateway"], ["connessione"], ["non raggiungibile", "5 s", "una sola"]],
         "note": "Ogni sensore apriva una connessione TCP ogni 5 s; l'EW11 ne accetta una sola, quindi l'app del produttore diceva \"gateway non raggiungibile\"."},
        {"id": "d1", "type": "decision",
         "match": [["coordinator", "DataUpdateCoordinator"], ["30"], ["una connessione", "una sola", "app"]],
         "note": "Un solo DataUpdateCoordinator, lettura ogni 30 s su una connessione chiusa subito dopo, perché il gateway accetta una connessione e l'app deve funzionare."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["Illegal Data Address"], ["blocco", "10", "17"]],
         "note": "Lettura unica dei registri 0–16 → Illegal Data Address (10–14 non esistono); si leggono due blocchi, 0–9 e 15–16."},
        {"id": "b3", "type": "bug_note",
         "match": [["blocking call", "bloccante", "event loop"], ["AsyncModbusTcpClient"]],
         "note": "Il client ModbusTcpClient sincrono bloccava l'event loop di HA (i test lo segnalano come errore); ora AsyncModbusTcpClient."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"], "required": False,
         "match": [["riavviare", "restart"], ["lavatrice", "automazione"]],
         "note": "Non riavviare HA di giorno: l'automazione della lavatrice delle 14 salta; Luca installa la sera."},
        {"id": "t1", "type": "todo",
         "match": [["sbrinamento"], ["registro 15"]],
         "note": "Domani mattina durante lo sbrinamento controllare se il registro 15 cambia davvero."},
        {"id": "q1", "type": "open_question",
         "match": [["firmware 2.3"], ["Marco"]],
         "note": "Chiedere a Marco se col firmware 2.3 della pompa la mappa dei registri è cambiata."},
        {"id": "v1", "type": "verified_command", "command": "pytest tests/ -q"},
    ],
    "secrets": [],
    "forbidden": [["task-notification"], ["doesn't want to proceed"]],
}
