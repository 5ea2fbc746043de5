# ruff: noqa: E501  (verbatim command output and file contents)
"""Rust embedded (embassy on RP2040): I2C read hanging forever, blocking timeout that never fires, async with_timeout + watchdog (Turkish mixed with English)."""

from make_sessions import Session

SENSOR_TASK = '''use defmt::*;
use embassy_rp::i2c::{self, Blocking, I2c};
use embassy_rp::peripherals::I2C0;
use embassy_time::{Duration, Timer};

use crate::BME280_ADDR;

#[embassy_executor::task]
pub async fn sensor_task(mut i2c: I2c<'static, I2C0, Blocking>) {
    let mut raw = [0u8; 8];
    loop {
        i2c.blocking_write_read(BME280_ADDR, &[0xF7], &mut raw).unwrap();
        let m = sensor_core::Measurement::from_raw(&raw);
        info!("t={} p={} h={}", m.temp_centi, m.press_pa, m.hum_milli);
        crate::READINGS.send(m).await;
        Timer::after(Duration::from_secs(10)).await;
    }
}
'''

MAIN_EXCERPT = '''#[embassy_executor::main]
async fn main(spawner: Spawner) {
    let p = embassy_rp::init(Default::default());

    let mut cfg = i2c::Config::default();
    cfg.frequency = 100_000;
    let i2c = I2c::new_blocking(p.I2C0, p.PIN_5, p.PIN_4, cfg);

    spawner.spawn(sensor::sensor_task(i2c)).unwrap();
    spawner.spawn(radio::lora_task(p.SPI1, p.PIN_10, p.PIN_11, p.PIN_12, p.PIN_13, p.DMA_CH0, p.DMA_CH1)).unwrap();
}
'''


def build() -> Session:
    s = Session("rust-embassy-i2c-mixed-tr-en", cwd="/home/selin/fw/tarla-node", branch="fix/i2c-hang",
                start="2026-11-04T11:08:33.702Z", version="2.1.74", slug="i2c-hang-kirpi")
    s.user(
        "sahadaki node'lar arada donuyo, son log hep sensor task'tan önce. i2c read hiç dönmüyor bence, "
        "özellikle kablo gevşek olunca. watchdog da yok galiba?? fix pls\n\n"
        "btw embassy versiyonlarını bump etme, Cargo.lock commitli, sahada 200 cihaz aynı build'le "
        "çalışıyo, yeni versiyon = yeni saha testi",
        wait=6,
    )
    s.call(s.read_call("src/sensor.rs", SENSOR_TASK), s.read_call("src/main.rs", MAIN_EXCERPT))
    s.say(
        "Evet, iki sorun var:\n\n1. `blocking_write_read(...).unwrap()` — sensör NACK verirse panic, "
        "SDA low'da takılı kalırsa da sonsuza kadar bekliyor. Task blocking olduğu için executor da "
        "duruyor, yani LoRa task'ı da donuyor.\n2. Watchdog yok: bir şey takıldığında cihaz sahada "
        "öyle kalıyor.\n\nÖnce I2C config'e timeout ekleyip hata durumunda `unwrap` yerine loglayıp "
        "devam edeceğim:"
    )
    s.edit("src/sensor.rs", '''        i2c.blocking_write_read(BME280_ADDR, &[0xF7], &mut raw).unwrap();
        let m = sensor_core::Measurement::from_raw(&raw);''', '''        if let Err(e) = i2c.blocking_write_read(BME280_ADDR, &[0xF7], &mut raw) {
            warn!("bme280 read failed: {}", e);
            Timer::after(Duration::from_secs(1)).await;
            continue;
        }
        let m = sensor_core::Measurement::from_raw(&raw);''')
    s.edit("src/main.rs", '''    cfg.frequency = 100_000;''', '''    cfg.frequency = 100_000;
    // clock stretching'e 5 ms'den fazla izin verme
    cfg.timeout_us = Some(5_000);''')
    s.bash("cargo build --release 2>&1 | tail -8", '''error[E0560]: struct `embassy_rp::i2c::Config` has no field named `timeout_us`
  --> src/main.rs:31:9
   |
31 |     cfg.timeout_us = Some(5_000);
   |         ^^^^^^^^^^ `embassy_rp::i2c::Config` does not have this field
   |
   = note: available fields are: `frequency`, `sda_pullup`, `scl_pullup`

error: could not compile `tarla-node` (bin "tarla-node") due to 1 previous error''', desc="Build", secs=34)
    s.say(
        "Bu embassy-rp sürümünde I2C config'te timeout yok; blocking API'de bekleme süresini "
        "sınırlamanın yolu yok. O satırı geri alıyorum. `unwrap` kaldırma kısmı yine de doğru "
        "(NACK durumunda panic yerine log), onu bırakıp build'e bakalım, sen de cihazda dene:"
    )
    s.edit("src/main.rs", '''    cfg.frequency = 100_000;
    // clock stretching'e 5 ms'den fazla izin verme
    cfg.timeout_us = Some(5_000);''', '''    cfg.frequency = 100_000;''')
    s.bash("cargo build --release 2>&1 | tail -2", '''   Compiling tarla-node v0.7.3 (/home/selin/fw/tarla-node)
    Finished `release` profile [optimized + debuginfo] target(s) in 31.77s''', desc="Build", secs=33)
    s.turn_end()
    s.user(
        "flashladım, SDA'yı GND'ye kısa devre yaptım test için -> yine donuyo. log yok, hiç warn "
        "gelmedi. yani hata dönmüyo bile, içerde takılıyo",
        wait=240,
    )
    s.say(
        "Beklediğim gibi: NACK'te hata dönüyor ama bus low'da takılıysa blocking sürücü "
        "`blocking_write_read` içinde busy-wait ediyor, hiç dönmüyor. Çözüm async sürücü: "
        "`I2c::new_async` ile DMA/interrupt tabanlı okuma, etrafına `embassy_time::with_timeout`. "
        "Async'te bekleme executor'a geri veriliyor, timeout future'ı drop edince okuma iptal "
        "oluyor. Ayrıca watchdog: main'de 2 s'lik watchdog, sensör task'ı her başarılı döngüde "
        "besliyor — bir şey yine de takılırsa cihaz sahada donup kalmak yerine reboot ediyor."
    )
    s.write("src/sensor.rs", '''use defmt::*;
use embassy_rp::i2c::{Async, I2c};
use embassy_rp::peripherals::I2C0;
use embassy_time::{with_timeout, Duration, Timer};

use crate::BME280_ADDR;

/// Bus takılırsa (SDA low) blocking okuma hiç dönmüyordu; async + timeout ile 50 ms'de vazgeçiyoruz.
const READ_TIMEOUT: Duration = Duration::from_millis(50);

#[embassy_executor::task]
pub async fn sensor_task(mut i2c: I2c<'static, I2C0, Async>) {
    let mut raw = [0u8; 8];
    loop {
        let res = with_timeout(READ_TIMEOUT, i2c.write_read_async(BME280_ADDR, [0xF7], &mut raw)).await;
        if res != Ok(Ok(())) {
            warn!("bme280 read failed: {}", res);
            Timer::after(Duration::from_secs(1)).await;
            continue;
        }
        let m = sensor_core::Measurement::from_raw(&raw);
        info!("t={} p={} h={}", m.temp_centi, m.press_pa, m.hum_milli);
        crate::READINGS.send(m).await;
        crate::WDT_FEED.signal(());
        Timer::after(Duration::from_secs(10)).await;
    }
}
''')
    s.edit("src/main.rs", '''    let i2c = I2c::new_blocking(p.I2C0, p.PIN_5, p.PIN_4, cfg);''', '''    let i2c = I2c::new_async(p.I2C0, p.PIN_5, p.PIN_4, Irqs, cfg);

    // 2 s watchdog: sensör döngüsü beslemezse reboot (sahada donup kalmasın)
    let mut wdt = Watchdog::new(p.WATCHDOG);
    wdt.start(Duration::from_secs(2));''')
    s.edit("src/main.rs", '''    spawner.spawn(radio::lora_task(p.SPI1, p.PIN_10, p.PIN_11, p.PIN_12, p.PIN_13, p.DMA_CH0, p.DMA_CH1)).unwrap();
}''', '''    spawner.spawn(radio::lora_task(p.SPI1, p.PIN_10, p.PIN_11, p.PIN_12, p.PIN_13, p.DMA_CH0, p.DMA_CH1)).unwrap();

    loop {
        match with_timeout(Duration::from_millis(1500), WDT_FEED.wait()).await {
            Ok(()) => wdt.feed(),
            Err(_) => warn!("no watchdog feed for 1.5 s"),
        }
    }
}''')
    s.bash("cargo build --release 2>&1 | tail -12", '''error[E0369]: binary operation `!=` cannot be applied to type `Result<Result<(), embassy_rp::i2c::Error>, TimeoutError>`
  --> src/sensor.rs:16:16
   |
16 |         if res != Ok(Ok(())) {
   |            --- ^^ -------- Result<Result<(), embassy_rp::i2c::Error>, _>
   |            |
   |            Result<Result<(), embassy_rp::i2c::Error>, TimeoutError>
   |
note: the foreign item type `embassy_rp::i2c::Error` doesn't implement `PartialEq`

error: could not compile `tarla-node` (bin "tarla-node") due to 1 previous error''', desc="Build", secs=30)
    s.edit("src/sensor.rs", '''        let res = with_timeout(READ_TIMEOUT, i2c.write_read_async(BME280_ADDR, [0xF7], &mut raw)).await;
        if res != Ok(Ok(())) {
            warn!("bme280 read failed: {}", res);
            Timer::after(Duration::from_secs(1)).await;
            continue;
        }''', '''        match with_timeout(READ_TIMEOUT, i2c.write_read_async(BME280_ADDR, [0xF7], &mut raw)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                warn!("bme280 read failed: {}", e);
                Timer::after(Duration::from_secs(1)).await;
                continue;
            }
            Err(_) => {
                warn!("bme280 read timed out (bus stuck?)");
                Timer::after(Duration::from_secs(1)).await;
                continue;
            }
        }''')
    s.bash("cargo build --release 2>&1 | tail -2", '''   Compiling tarla-node v0.7.3 (/home/selin/fw/tarla-node)
    Finished `release` profile [optimized + debuginfo] target(s) in 29.04s''', desc="Build", secs=31)
    s.bash("cargo clippy --release -- -D warnings 2>&1 | tail -2", '''    Checking tarla-node v0.7.3 (/home/selin/fw/tarla-node)
    Finished `release` profile [optimized + debuginfo] target(s) in 8.11s''', desc="Clippy", secs=10)
    s.bash("cargo test -p sensor-core --target x86_64-unknown-linux-gnu 2>&1 | tail -3", '''running 6 tests
......
test result: ok. 6 passed; 0 failed; 0 ignored; 0 measured; 0 finished in 0.00s''', desc="Host testleri (sensor-core)", secs=12)
    s.say(
        "Build ve clippy temiz, `sensor-core` host testleri geçiyor. Bir şeye dikkat: READINGS "
        "kanalı doluysa (LoRa task'ı yavaşsa) `send().await` bekler ve watchdog beslenmez. Normalde "
        "sorun değil ama LoRa TX uzun sürerse reset atabilir. Tekrar SDA-GND testi yapabilir misin?"
    )
    s.turn_end()
    s.user(
        "tamam oldu 👍 probe-rs ile kısa devrede 'read timed out' warn'ları geliyo, söküp takınca devam ediyo. "
        "sonra uf2 yapıp sensörü tamamen söktüm, 3 saattir çalışıyo donmadı. "
        "watchdog 2s yeterli mi emin değilim ama, LoRa SF12'de bir TX 1.5 sn'yi geçebiliyo. "
        "Emre'ye sorayım radyo onun işi. reset reason'ı da uplink'e koymak lazım ama sonra",
        wait=600,
    )
    s.say(
        "Timeout kısmı güzel. Ama sensörsüz 3 saat tutmuyor: sensör yokken okuma hep hata veriyor, "
        "`WDT_FEED` sadece başarılı okumada sinyalleniyor, main döngüsü 1.5 s'de sadece warn basıyor "
        "ve `wdt.feed()` çağırmıyor. Yani sensörsüz 2 s'de bir reboot olması gerekirdi. Cihazdaki "
        "uf2 eski build olabilir mi?"
    )
    s.turn_end()
    s.user("haklısın uf2'yi yeniden üretmemişim, eskisini atmışım 🤦 yenisiyle sensörsüz -> her 2 sn reboot. sensörsüz reboot loop istemiyoruz tho, sensör yoksa da radyo çalışmalı", wait=300)
    s.say(
        "Mantıklı: watchdog 'sensör okundu' değil 'executor hâlâ dönüyor' demek olmalı. Besleme "
        "sinyalini okuma sonucundan bağımsız, her döngü turunda veriyorum (timeout ve hata "
        "dallarında da). Bus takılsa bile async timeout sayesinde döngü dönüyor; gerçekten "
        "executor kilitlenirse yine reboot olur."
    )
    s.edit("src/sensor.rs", '''    loop {
        match with_timeout(READ_TIMEOUT''', '''    loop {
        // watchdog "döngü dönüyor" demek, "sensör var" değil: sensörsüz de radyo çalışmalı
        crate::WDT_FEED.signal(());
        match with_timeout(READ_TIMEOUT''')
    s.edit("src/sensor.rs", '''        crate::READINGS.send(m).await;
        crate::WDT_FEED.signal(());''', '''        crate::READINGS.send(m).await;''')
    s.bash("cargo build --release 2>&1 | tail -2", '''   Compiling tarla-node v0.7.3 (/home/selin/fw/tarla-node)
    Finished `release` profile [optimized + debuginfo] target(s) in 28.60s''', desc="Build", secs=30)
    s.bash("cargo clippy --release -- -D warnings 2>&1 | tail -2", '''    Checking tarla-node v0.7.3 (/home/selin/fw/tarla-node)
    Finished `release` profile [optimized + debuginfo] target(s) in 7.94s''', desc="Clippy", secs=9)
    s.say("Build ve clippy tamam. Sensörsüz artık her saniye 'read failed' warn'ı olmalı, reboot değil.")
    s.turn_end()
    s.user("evet öyle, reboot yok. süper thx", wait=200)
    s.say("Rica ederim!")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Rust embedded (embassy-rp on RP2040, defmt, probe-rs), Turkish mixed with English, a terse user with typos and emoji",
        "a no-bump rule with its reason (200 devices in the field on one build, Cargo.lock committed)",
        "a config field that doesn't exist (E0560), reverted; a first fix reported by the user not to work on the device",
        "decision with its why before a Write (async I2C + with_timeout; watchdog)",
        "E0369 compile error behind `| tail`, fixed with a match",
        "the agent's mistaken reading of a user report corrected by the user (old firmware flashed), then a rule (no reboot loop without the sensor)",
        "open question for a colleague (watchdog vs LoRa SF12 TX) and a todo in passing (reset reason in the uplink)",
    ],
    "language": "tr+en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["embassy"], ["bump"], ["200", "saha"]],
         "note": "Embassy versiyonları bump edilmez: Cargo.lock commitli, sahada 200 cihaz aynı build'le çalışıyor, yeni versiyon = yeni saha testi."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["blocking"], ["timeout"], ["donuyo", "hang", "takıl", "busy-wait"]],
         "note": "Blocking I2C'de timeout yok (timeout_us alanı yok); unwrap'ı kaldırmak da yetmedi, SDA low'da blocking_write_read hiç dönmüyor."},
        {"id": "d1", "type": "decision",
         "match": [["with_timeout", "new_async", "async"], ["takıl", "SDA", "dönmüyor", "bus"]],
         "note": "I2C async sürücüyle (new_async) ve with_timeout 50 ms ile okunuyor: bus takılınca blocking okuma hiç dönmüyordu."},
        {"id": "d2", "type": "decision",
         "match": [["watchdog"], ["reboot", "donup"]],
         "note": "2 s watchdog eklendi: bir şey takılırsa cihaz sahada donup kalmak yerine reboot ediyor."},
        {"id": "b1", "type": "bug_note", "required": False,
         "match": [["TimeoutError", "E0369"], ["PartialEq", "match"]],
         "note": "with_timeout sonucu Result<Result<..>, TimeoutError>; i2c::Error PartialEq değil, != yerine match."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "decision", "preference"],
         "match": [["watchdog"], ["sensörsüz", "sensör yoksa"], ["radyo", "reboot"]],
         "note": "Sensör yokken reboot loop istenmiyor, radyo çalışmalı: watchdog her döngü turunda besleniyor, okuma sonucundan bağımsız."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["Emre"], ["SF12", "2s", "watchdog"]],
         "note": "Watchdog 2 s yeterli mi? LoRa SF12'de bir TX 1.5 s'yi geçebiliyor; Emre'ye sorulacak (radyo onun işi)."},
        {"id": "t1", "type": "todo",
         "match": [["reset reason"], ["uplink"]],
         "note": "Reset reason'ı uplink'e koymak lazım, sonra."},
        {"id": "v1", "type": "verified_command", "command": "cargo build --release"},
        {"id": "v2", "type": "verified_command", "command": "cargo clippy --release -- -D warnings"},
        {"id": "v3", "type": "verified_command", "command": "cargo test -p sensor-core --target x86_64-unknown-linux-gnu"},
    ],
    "secrets": [],
    "forbidden": [],
}
