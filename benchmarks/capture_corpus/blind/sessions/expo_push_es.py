# ruff: noqa: E501  (verbatim command output and file contents)
"""React Native (Expo SDK 51) push notifications; an interrupted metro start; Android 13 permission (Spanish)."""

from make_sessions import Session

APP_JSON = '''{
  "expo": {
    "name": "RutaFresca",
    "slug": "rutafresca",
    "version": "1.14.0",
    "android": { "package": "mx.rutafresca.app" },
    "ios": { "bundleIdentifier": "mx.rutafresca.app" },
    "plugins": ["expo-router", "expo-secure-store"],
    "extra": { "eas": { "projectId": "0b7c2f1e-5d84-4a39-9e61-3f2a8c4d7b10" } }
  }
}
'''

PEDIDO = '''import { useLocalSearchParams } from "expo-router";
import { usePedido } from "../../src/api/pedidos";
import { EstadoPedido } from "../../src/componentes/EstadoPedido";

export default function PantallaPedido() {
  const { id } = useLocalSearchParams<{ id: string }>();
  const { data: pedido, refetch } = usePedido(id);
  return <EstadoPedido pedido={pedido} onRefrescar={refetch} />;
}
'''

NOTIF_V1 = '''import * as Notifications from "expo-notifications";
import { api } from "./api/cliente";

/** Pide el token de Expo y lo registra en el backend (POST /dispositivos). */
export async function registrarDispositivo(): Promise<string | null> {
  const { status } = await Notifications.getPermissionsAsync();
  if (status !== "granted") return null;
  const { data: token } = await Notifications.getExpoPushTokenAsync();
  await api.post("/dispositivos", { token });
  return token;
}
'''


def build() -> Session:
    s = Session("expo-push-es", cwd="/Users/dani/dev/rutafresca-app", branch="feat/push-pedido-en-camino",
                start="2026-02-09T16:12:40.881Z", version="2.1.41", slug="notifying-courier-gecko",
                stop_reasons=True)
    s.user(
        "Hola! Queremos avisar al cliente con una notificación push cuando su pedido sale a "
        "reparto (\"Tu pedido va en camino\"). El backend ya manda el push por la API de Expo, "
        "solo falta la app.\n\nOjo: usamos expo-notifications, nada de react-native-firebase, "
        "que la última vez nos rompió el build de EAS en el flujo managed.",
        wait=5,
    )
    s.call(s.read_call("app.json", APP_JSON), s.read_call("app/pedido/[id].tsx", PEDIDO))
    s.bash("npx expo install expo-notifications expo-device 2>&1 | tail -2", '''› Installing 2 SDK 51.0.0 compatible native modules using npm
> npm install''', desc="Instalar expo-notifications", secs=20)
    s.write("src/notificaciones.ts", NOTIF_V1)
    s.edit("app.json", '''    "plugins": ["expo-router", "expo-secure-store"],''', '''    "plugins": ["expo-router", "expo-secure-store", ["expo-notifications", { "color": "#1F8A4C" }]],''')
    s.say("Lo registro al arrancar la app y pruebo en el emulador:")
    s.call(s.rejected_call("Bash", {"command": "npx expo start --android",
                                    "description": "Arrancar Metro en Android"}, secs=95.0))
    s.interrupt(for_tool=True)
    s.user(
        "no arranques metro desde aquí, se queda colgado y ya lo tengo abierto en otra terminal. "
        "yo pruebo en el teléfono y te digo",
        wait=10,
    )
    s.say("Entendido, no lo vuelvo a lanzar. Aviso cuando esté listo para probar.")
    s.edit("app/pedido/[id].tsx", '''export default function PantallaPedido() {''', '''export default function PantallaPedido() {
  // El push "va en camino" refresca esta pantalla si está abierta.''')
    s.write("app/_layout.tsx", '''import { Stack } from "expo-router";
import { useEffect } from "react";
import { registrarDispositivo } from "../src/notificaciones";

export default function Layout() {
  useEffect(() => {
    registrarDispositivo();
  }, []);
  return <Stack />;
}
''')
    s.bash("npx tsc --noEmit", "", desc="Typecheck", secs=14)
    s.say("Listo para probar: abre la app en el teléfono, debería registrar el dispositivo.")
    s.turn_end()
    s.user(
        "en el Pixel (Android 14) no pide permiso y no llega nada. y en el log de metro sale esto:\n\n"
        "ERROR  [Error: No \"projectId\" found. If \"projectId\" can't be inferred from the manifest "
        "(for instance, in bare workflow), you have to pass it in yourself.]",
        wait=300,
    )
    s.say(
        "Son dos cosas:\n\n"
        "1. `getExpoPushTokenAsync()` no encuentra el `projectId` en el build de desarrollo; hay "
        "que pasárselo desde `Constants.expoConfig.extra.eas.projectId`, que ya está en `app.json`.\n"
        "2. Desde Android 13 el permiso `POST_NOTIFICATIONS` es de tiempo de ejecución: mi código "
        "solo *consultaba* el permiso y salía si no estaba concedido, nunca lo pedía. Primero "
        "pruebo a declararlo en `app.json`."
    )
    s.edit("app.json", '''    "android": { "package": "mx.rutafresca.app" },''', '''    "android": { "package": "mx.rutafresca.app", "permissions": ["POST_NOTIFICATIONS"] },''')
    s.edit("src/notificaciones.ts", '''import * as Notifications from "expo-notifications";''', '''import Constants from "expo-constants";
import * as Notifications from "expo-notifications";''')
    s.edit("src/notificaciones.ts", '''  const { data: token } = await Notifications.getExpoPushTokenAsync();''', '''  const projectId = Constants.expoConfig?.extra?.eas?.projectId;
  const { data: token } = await Notifications.getExpoPushTokenAsync({ projectId });''')
    s.bash("npx tsc --noEmit", "", desc="Typecheck", secs=14)
    s.say("Prueba otra vez (hace falta un dev build nuevo por el cambio en `app.json`).")
    s.turn_end()
    s.user("nuevo build instalado. sigue sin pedir permiso, el error del projectId ya no sale", wait=600)
    s.say(
        "Era de esperar: declararlo en `app.json` solo lo pone en el manifiesto, pero Android 13+ "
        "exige además pedirlo en tiempo de ejecución. Quito eso de `app.json` (expo-notifications "
        "ya lo añade) y pido el permiso con `requestPermissionsAsync` cuando no está concedido. "
        "Android además necesita un canal; creo `pedidos` con importancia alta para que suene."
    )
    s.edit("app.json", '''    "android": { "package": "mx.rutafresca.app", "permissions": ["POST_NOTIFICATIONS"] },''', '''    "android": { "package": "mx.rutafresca.app" },''')
    s.write("src/notificaciones.ts", '''import Constants from "expo-constants";
import * as Device from "expo-device";
import * as Notifications from "expo-notifications";
import { Platform } from "react-native";
import { api } from "./api/cliente";

/**
 * Pide permiso (Android 13+ lo exige en tiempo de ejecución), obtiene el token de Expo y lo
 * registra en el backend. Se llama en cada arranque: el token cambia tras reinstalar la app.
 */
export async function registrarDispositivo(): Promise<string | null> {
  if (!Device.isDevice) return null;
  if (Platform.OS === "android") {
    await Notifications.setNotificationChannelAsync("pedidos", {
      name: "Pedidos",
      importance: Notifications.AndroidImportance.HIGH,
    });
  }
  let { status } = await Notifications.getPermissionsAsync();
  if (status !== "granted") {
    ({ status } = await Notifications.requestPermissionsAsync());
  }
  if (status !== "granted") return null;
  const projectId = Constants.expoConfig?.extra?.eas?.projectId;
  const { data: token } = await Notifications.getExpoPushTokenAsync({ projectId });
  await api.post("/dispositivos", { token, plataforma: Platform.OS });
  return token;
}
''')
    s.write("src/__tests__/notificaciones.test.ts", '''import * as Notifications from "expo-notifications";
import { registrarDispositivo } from "../notificaciones";
import { api } from "../api/cliente";

jest.mock("expo-device", () => ({ isDevice: true }));
jest.mock("../api/cliente", () => ({ api: { post: jest.fn() } }));

test("pide permiso si no está concedido y registra el token", async () => {
  jest.spyOn(Notifications, "getPermissionsAsync").mockResolvedValue({ status: "undetermined" } as never);
  jest.spyOn(Notifications, "requestPermissionsAsync").mockResolvedValue({ status: "granted" } as never);
  jest.spyOn(Notifications, "getExpoPushTokenAsync").mockResolvedValue({ data: "ExponentPushToken[abc]" } as never);
  await expect(registrarDispositivo()).resolves.toBe("ExponentPushToken[abc]");
  expect(api.post).toHaveBeenCalledWith("/dispositivos", expect.objectContaining({ token: "ExponentPushToken[abc]" }));
});

test("no registra nada si el usuario deniega el permiso", async () => {
  jest.spyOn(Notifications, "getPermissionsAsync").mockResolvedValue({ status: "denied" } as never);
  jest.spyOn(Notifications, "requestPermissionsAsync").mockResolvedValue({ status: "denied" } as never);
  await expect(registrarDispositivo()).resolves.toBeNull();
});
''')
    s.bash("npx jest src/__tests__/notificaciones.test.ts 2>&1 | tail -5", '''PASS src/__tests__/notificaciones.test.ts
  ✓ pide permiso si no está concedido y registra el token (14 ms)
  ✓ no registra nada si el usuario deniega el permiso (3 ms)

Tests:       2 passed, 2 total''', desc="Tests de notificaciones", secs=12)
    s.bash("npx tsc --noEmit", "", desc="Typecheck", secs=14)
    s.say("¿Y si el push llega con la app abierta en primer plano?")
    q = "Con la app en primer plano, ¿qué hacemos con el push de 'va en camino'?"
    s.ask(
        [{"question": q, "header": "Primer plano",
          "options": [("Mostrar banner", "Igual que en segundo plano"),
                      ("Solo refrescar", "Sin banner; refrescar la pantalla del pedido")]}],
        {q: "sin banner, que se refresque la pantalla del pedido nada más. al cliente le molesta el doble aviso"},
    )
    s.edit("src/notificaciones.ts", '''/**
 * Pide permiso''', '''// En primer plano: sin banner ni sonido (el cliente ve la pantalla del pedido refrescarse).
Notifications.setNotificationHandler({
  handleNotification: async () => ({ shouldShowAlert: false, shouldPlaySound: false, shouldSetBadge: false }),
});

/**
 * Pide permiso''')
    s.bash("npx jest 2>&1 | tail -4", '''Test Suites: 23 passed, 23 total
Tests:       141 passed, 141 total
Snapshots:   4 passed, 4 total
Time:        18.402 s''', desc="Suite completa", secs=24)
    s.say(
        "Hecho:\n- `registrarDispositivo()` crea el canal `pedidos`, pide el permiso si hace falta "
        "(Android 13+), obtiene el token con el `projectId` de EAS y lo manda a `POST /dispositivos` "
        "en cada arranque (el token cambia al reinstalar).\n- En primer plano no hay banner.\n- 141 "
        "tests verdes, `tsc` limpio.\n\nNo he podido probar iOS: para que lleguen pushes en iOS, "
        "EAS necesita la clave APNs del equipo de Apple."
    )
    s.turn_end()
    s.user("ya me llegó en el Pixel 👌 la clave APNs la tiene Marta, se la pido mañana", wait=240)
    s.say("Perfecto. Cuando esté en EAS, un dev build de iOS y lo probamos igual.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "React Native / Expo SDK 51 (expo-notifications, expo-router, jest), Spanish",
        "a rule with its reason in the first prompt (expo-notifications, no react-native-firebase: broke the EAS managed build)",
        "a foreground `npx expo start` interrupted by the user, then a rule (don't start metro from here)",
        "an error pasted by the user from the device log (projectId), fixed",
        "a first fix (permission in app.json) that the user reports as not working, replaced by a runtime request",
        "AskUserQuestion answered in free text with a preference and its reason",
        "a todo left with a colleague (APNs key, Marta); stop_reason on final blocks",
    ],
    "language": "es",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["react-native-firebase"], ["EAS", "managed"]],
         "note": "Push con expo-notifications, nada de react-native-firebase: rompió el build de EAS en el flujo managed."},
        {"id": "c2", "type": "preference", "types": ["preference", "constraint"],
         "match": [["metro"], ["otra terminal", "colgado"]],
         "note": "No arrancar metro (npx expo start) desde el agente: se queda colgado y Dani lo tiene abierto en otra terminal."},
        {"id": "b1", "type": "bug_note",
         "match": [["projectId"], ["getExpoPushTokenAsync", "expoConfig", "eas"]],
         "note": "getExpoPushTokenAsync fallaba con 'No \"projectId\" found': se pasa Constants.expoConfig.extra.eas.projectId."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["POST_NOTIFICATIONS", "permiso"], ["app.json"], ["requestPermissionsAsync", "tiempo de ejecución"]],
         "note": "Declarar POST_NOTIFICATIONS en app.json no bastó: Android 13+ exige pedir el permiso en tiempo de ejecución (requestPermissionsAsync)."},
        {"id": "d1", "type": "decision",
         "match": [["/dispositivos", "token"], ["reinstalar", "cada arranque"]],
         "note": "El token de Expo se registra en POST /dispositivos en cada arranque, porque cambia al reinstalar la app."},
        {"id": "d2", "type": "decision", "required": False,
         "match": [["canal", "setNotificationChannelAsync"], ["pedidos"]],
         "note": "En Android las notificaciones van por el canal 'pedidos' con importancia alta."},
        {"id": "p1", "type": "preference", "types": ["preference", "decision", "constraint"],
         "match": [["primer plano"], ["banner"], ["doble aviso", "refresque", "refrescar"]],
         "note": "Con la app en primer plano, sin banner: solo se refresca la pantalla del pedido (al cliente le molesta el doble aviso)."},
        {"id": "t1", "type": "todo",
         "match": [["APNs"], ["Marta", "iOS", "EAS"]],
         "note": "iOS sin probar: falta la clave APNs en EAS, la tiene Marta."},
        {"id": "v1", "type": "verified_command", "command": "npx jest src/__tests__/notificaciones.test.ts"},
        {"id": "v2", "type": "verified_command", "command": "npx tsc --noEmit"},
        {"id": "v3", "type": "verified_command", "command": "npx jest"},
    ],
    "secrets": [],
    "forbidden": [["Request interrupted"], ["doesn't want to proceed"], ["User has answered"]],
}
