# ruff: noqa: E501  (verbatim command output and file contents)
"""Django Channels live order tracking losing updates across two pods; Hindi-English (Hinglish) user; Redis password in output."""

from make_sessions import Session

REDIS_PASSWORD = "Xk29fQpL7vNw3RtY"

SETTINGS_PROD = '''from .base import *  # noqa

DEBUG = False
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS")

CHANNEL_LAYERS = {
    "default": {"BACKEND": "channels.layers.InMemoryChannelLayer"},
}

CELERY_BROKER_URL = env("REDIS_URL")
'''

CONSUMER = '''from channels.generic.websocket import AsyncJsonWebsocketConsumer


class OrderTrackingConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        if self.scope["user"].is_anonymous:
            await self.close(code=4401)
            return
        self.order_id = self.scope["url_route"]["kwargs"]["order_id"]
        self.group = f"order_{self.order_id}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def order_status(self, event):
        await self.send_json({"status": event["status"], "eta": event.get("eta")})
'''

TEST = '''import pytest
from channels.testing import WebsocketCommunicator

from dabba.asgi import application
from tests.factories import OrderFactory, UserFactory

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def connect_as(user, order):
    comm = WebsocketCommunicator(application, f"/ws/orders/{order.id}/")
    comm.scope["user"] = user
    return comm, await comm.connect()


async def test_owner_receives_status(order_status_sender):
    order = await OrderFactory.acreate()
    comm, (ok, _) = await connect_as(order.customer, order)
    assert ok
    await order_status_sender(order.id, "out_for_delivery")
    assert (await comm.receive_json_from(timeout=2))["status"] == "out_for_delivery"
    await comm.disconnect()


async def test_other_customer_is_rejected():
    order = await OrderFactory.acreate()
    stranger = await UserFactory.acreate()
    comm, (ok, code) = await connect_as(stranger, order)
    assert not ok and code == 4403
'''


def build() -> Session:
    s = Session("channels-tracking-mixed-hi-en", cwd="/home/aditi/work/dabba-backend", branch="fix/live-tracking-updates",
                start="2026-03-23T06:35:11.640Z", version="2.1.59", slug="lost-update-mongoose")
    s.user(
        "hey, live tracking screen pe status updates kabhi aate hain kabhi nahi. local pe sab theek hai, prod pe 2 daphne pods hain "
        "aur wahan random lagta hai. customers complain kar rahe hain ki 'out for delivery' dikhta hi nahi.\n"
        "btw do cheezein: tests pytest mein likhna, django TestCase nahi. aur settings sab env se, django-environ wala pattern jo base.py mein hai",
        wait=5,
    )
    s.call(s.read_call("dabba/settings/prod.py", SETTINGS_PROD), s.read_call("tracking/consumers.py", CONSUMER))
    s.say(
        "Mil gaya, prod settings mein `InMemoryChannelLayer` hai. In-memory layer har process ka "
        "apna hota hai: Celery task jo `group_send` karta hai woh apne process ke memory mein bhejta "
        "hai, aur customer ka websocket jis Daphne pod pe hai wahan tak kuch nahi pahunchta. Local pe "
        "ek hi process hai isliye wahan sab chalta hai. Prod mein shared layer chahiye — "
        "`channels_redis`."
    )
    s.bash("grep -n 'channels' requirements/base.txt && grep -n REDIS .env", f'''14:channels==4.1.0
15:channels-redis==4.2.0
.env:9:REDIS_URL=redis://:{REDIS_PASSWORD}@localhost:6379/0''', desc="channels-redis installed? Redis URL")
    s.say("`channels-redis` already requirements mein hai, bas use nahi ho raha. Ek sawaal Redis DB ke baare mein:")
    q = "Channel layer ke liye kaunsa Redis DB?"
    s.ask(
        [{"question": q, "header": "Redis DB",
          "options": [("Celery wala (db 0)", "Same REDIS_URL, koi naya config nahi"),
                      ("Alag DB", "REDIS_URL ka host, alag db number")]}],
        {q: "alag DB, db 2 use karo. celery wala db 0 har deploy pe flush hota hai (purge script), channels ke groups bhi ud jayenge"},
    )
    s.say(
        "Theek hai: `CHANNELS_REDIS_URL` env se, default wahi host db 2. base.py ke pattern jaisa "
        "`env(\"…\", default=…)`."
    )
    s.edit("dabba/settings/prod.py", '''CHANNEL_LAYERS = {
    "default": {"BACKEND": "channels.layers.InMemoryChannelLayer"},
}''', '''# Shared layer: InMemoryChannelLayer har process ka alag hota hai, 2 pods pe group_send kho jaata tha.
# db 2, kyunki Celery ka db 0 har deploy pe purge hota hai.
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [env("CHANNELS_REDIS_URL", default=env("REDIS_URL").rsplit("/", 1)[0] + "/2")]},
    },
}''')
    s.say("Prod compose mein bhi env var daal deta hoon taaki explicitly set ho:")
    s.call(s.read_call("deploy/docker-compose.prod.yml", '''services:
  web:
    image: dabba/backend:${TAG}
    command: daphne -b 0.0.0.0 -p 8000 dabba.asgi:application
    env_file: .env.prod
    deploy:
      replicas: 2
'''))
    s.edit_rejected("deploy/docker-compose.prod.yml", '''    env_file: .env.prod''', '''    env_file: .env.prod
    environment:
      CHANNELS_REDIS_URL: redis://redis:6379/2''',
                    reason="prod compose mat chhedo, woh infra team ka hai (Gaurav). wahan redis service nahi hai, ElastiCache hai. env var main unko bol dungi")
    s.say("Samjha, compose ko haath nahi lagata. Default REDIS_URL ke host se db 2 banata hai, toh env var ke bina bhi chalega.")
    s.write("tests/tracking/test_consumer.py", TEST)
    s.bash("pytest tests/tracking -q 2>&1 | tail -6", '''FAILED tests/tracking/test_consumer.py::test_other_customer_is_rejected - assert (not True)
1 failed, 1 passed in 2.87s''', desc="Consumer tests", secs=14)
    s.say(
        "Pehla test pass (owner ko status milta hai). Doosra fail hua — aur yeh ek alag, asli bug hai: "
        "consumer sirf dekhta hai ki user logged in hai, yeh nahi ki order usi ka hai. Koi bhi "
        "logged-in customer `/ws/orders/<kisi ka bhi id>/` khol ke doosre ka status aur ETA dekh "
        "sakta tha. Order ownership check karke 4403 se close karta hoon:"
    )
    s.edit("tracking/consumers.py", '''from channels.generic.websocket import AsyncJsonWebsocketConsumer
''', '''from channels.generic.websocket import AsyncJsonWebsocketConsumer

from orders.models import Order
''')
    s.edit("tracking/consumers.py", '''        self.order_id = self.scope["url_route"]["kwargs"]["order_id"]
        self.group''', '''        self.order_id = self.scope["url_route"]["kwargs"]["order_id"]
        owns = await Order.objects.filter(id=self.order_id, customer=self.scope["user"]).aexists()
        if not owns:
            await self.close(code=4403)
            return
        self.group''')
    s.bash("pytest tests/tracking -q", '''..                                                                       [100%]
2 passed in 2.64s''', desc="Consumer tests", secs=14)
    s.bash("DJANGO_SETTINGS_MODULE=dabba.settings.prod ALLOWED_HOSTS=x SECRET_KEY=x python manage.py check", "System check identified no issues (0 silenced).", desc="Prod settings load", secs=6)
    s.bash("pytest -q 2>&1 | tail -2", '''........................................................................ [ 97%]
..                                                                       [100%]
214 passed in 38.41s''', desc="Full suite", secs=45)
    s.say(
        "Done:\n"
        "- **Lost updates:** prod mein `InMemoryChannelLayer` tha, har pod ka apna. Ab "
        "`RedisChannelLayer`, `CHANNELS_REDIS_URL` env se (default: REDIS_URL ka host, db 2 — Celery "
        "ka db 0 deploy pe purge hota hai).\n"
        "- **Security bug:** koi bhi logged-in user kisi ka bhi order track kar sakta tha; ab owner "
        "nahi hai toh close 4403.\n"
        "- pytest: naye 2 tests + poora suite (214) green, prod settings `manage.py check` clean.\n\n"
        "Nahi kiya: prod compose (Gaurav ki team ka), aur do pods ke saath real load test."
    )
    s.turn_end()
    s.user(
        "perfect 🙏 load test Diwali sale ke baad karenge, abhi infra freeze hai. ek cheez pata nahi — ALB pe websockets ke liye sticky sessions "
        "chahiye ya nahi ab Redis layer ke saath? Gaurav se puchna padega",
        wait=90,
    )
    s.say(
        "Redis layer ke saath groups pods ke beech share hote hain, toh routing ke liye sticky zaroori "
        "nahi hona chahiye — lekin ALB ka idle timeout aur websocket upgrade config Gaurav hi confirm "
        "kar payenge."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Django Channels 4 + channels_redis, pytest-asyncio WebsocketCommunicator, Hindi-English (Hinglish) user and replies",
        "two rules in the first prompt (pytest not TestCase; settings from env, django-environ pattern)",
        "Redis password printed by `grep REDIS .env` (secret)",
        "AskUserQuestion answered in free text with a decision and its reason (db 2, Celery db 0 purged on deploy)",
        "an Edit to the prod compose file rejected with a rule (infra team's, ElastiCache)",
        "a missing ownership check found by a new test behind `| tail`, fixed, then passing; todo 'after Diwali sale', open question for a colleague",
    ],
    "language": "hi+en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["pytest"], ["TestCase"]],
         "note": "Tests pytest mein, Django TestCase nahi."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["env"], ["django-environ", "base.py"]],
         "note": "Saari settings env se, base.py wala django-environ pattern."},
        {"id": "b1", "type": "bug_note",
         "match": [["InMemoryChannelLayer"], ["pod", "process"], ["RedisChannelLayer", "channels_redis", "channels-redis"]],
         "note": "Prod mein InMemoryChannelLayer tha: har Daphne pod/process ka alag, Celery ka group_send customer tak nahi pahunchta; ab RedisChannelLayer."},
        {"id": "d1", "type": "decision",
         "match": [["db 2"], ["flush", "purge"]],
         "note": "Channel layer Redis db 2 pe (CHANNELS_REDIS_URL), kyunki Celery ka db 0 har deploy pe purge hota hai."},
        {"id": "c3", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["compose"], ["Gaurav", "infra team"]],
         "note": "Prod docker-compose infra team (Gaurav) ka hai, usko mat chhedo; wahan ElastiCache hai, redis service nahi."},
        {"id": "b2", "type": "bug_note",
         "match": [["4403"], ["owner", "ownership", "kisi ka bhi"]],
         "note": "OrderTrackingConsumer order ownership check nahi karta tha: koi bhi logged-in user kisi ka bhi order track kar sakta tha; ab close 4403."},
        {"id": "t1", "type": "todo",
         "match": [["load test"], ["Diwali"]],
         "note": "Do pods ke saath load test Diwali sale ke baad (abhi infra freeze)."},
        {"id": "q1", "type": "open_question",
         "match": [["sticky"], ["ALB", "Gaurav"]],
         "note": "Redis layer ke saath ALB pe websockets ke liye sticky sessions chahiye ya nahi? Gaurav se puchna."},
        {"id": "x1", "type": "todo", "required": False,
         "match": [["CHANNELS_REDIS_URL", "env var"], ["Gaurav", "unko bol dungi"]],
         "note": "Aditi infra team ko CHANNELS_REDIS_URL prod env mein set karne ko bolegi."},
        {"id": "v1", "type": "verified_command", "command": "pytest tests/tracking -q"},
        {"id": "v2", "type": "verified_command", "command": "pytest -q"},
        {"id": "v3", "type": "verified_command", "command": "DJANGO_SETTINGS_MODULE=dabba.settings.prod ALLOWED_HOSTS=x SECRET_KEY=x python manage.py check", "required": False},
    ],
    "secrets": [REDIS_PASSWORD],
    "forbidden": [["doesn't want to proceed"], ["User has answered"]],
}
