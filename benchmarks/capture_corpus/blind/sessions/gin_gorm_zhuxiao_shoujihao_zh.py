# ruff: noqa: E501  (verbatim command output and file contents)
"""Gin + GORM on MySQL 8: re-registering a deleted (soft-deleted) phone number fails with 1062; (phone, deleted_at) unique tried and dropped (NULLs); generated column chosen; background integration runs (Chinese)."""

from make_sessions import Session

USER_GO = '''package model

import (
\t"time"

\t"gorm.io/gorm"
)

type User struct {
\tID        uint64         `gorm:"primaryKey"`
\tPhone     string         `gorm:"size:20;not null"`
\tNickname  string         `gorm:"size:64"`
\tCreatedAt time.Time
\tUpdatedAt time.Time
\tDeletedAt gorm.DeletedAt `gorm:"index"`
}
'''

MIGRATION_USERS = '''-- +goose Up
CREATE TABLE users (
    id         BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    phone      VARCHAR(20)     NOT NULL,
    nickname   VARCHAR(64)     NULL,
    created_at DATETIME(3)     NOT NULL,
    updated_at DATETIME(3)     NOT NULL,
    deleted_at DATETIME(3)     NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_users_phone (phone),
    KEY idx_users_deleted_at (deleted_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- +goose Down
DROP TABLE users;
'''

HANDLER = '''func (h *AuthHandler) Register(c *gin.Context) {
\tvar req RegisterReq
\tif err := c.ShouldBindJSON(&req); err != nil {
\t\tc.JSON(http.StatusBadRequest, Fail(10001, "参数错误"))
\t\treturn
\t}
\tif !h.sms.Verify(c, req.Phone, req.Code) {
\t\tc.JSON(http.StatusBadRequest, Fail(10011, "验证码错误"))
\t\treturn
\t}
\tu := &model.User{Phone: req.Phone, Nickname: defaultNickname(req.Phone)}
\tif err := h.db.WithContext(c).Create(u).Error; err != nil {
\t\th.log.Error("create user", zap.Error(err))
\t\tc.JSON(http.StatusInternalServerError, Fail(50000, "服务器开小差了"))
\t\treturn
\t}
\tc.JSON(http.StatusOK, OK(h.issueToken(u)))
}
'''


def build() -> Session:
    s = Session("gin-gorm-zhuxiao-shoujihao-zh", cwd="/data/code/yuedu-server", branch="fix/reregister-1062",
                start="2026-03-09T02:17:45.662Z", version="2.1.22", slug="soft-delete-unique-phone")
    s.user(
        "用户注销以后再用同一个手机号注册，接口直接 500，日志里是 Error 1062 (23000): Duplicate entry '13816620497' for key 'users.uk_users_phone'。"
        "修一下。别用 AutoMigrate，表结构变更一律写 goose 迁移文件，DBA 要审的",
        wait=5,
    )
    s.call(s.read_call("internal/model/user.go", USER_GO), s.read_call("migrations/20250301101500_create_users.sql", MIGRATION_USERS))
    s.grep("Create\\(u\\)", content='''internal/handler/auth.go:41:\tif err := h.db.WithContext(c).Create(u).Error; err != nil {''', path="internal")
    s.read("internal/handler/auth.go", HANDLER)
    s.say(
        "原因：`User` 用的是 GORM 的软删除（`gorm.DeletedAt`），注销只是把 `deleted_at` 设上时间，行还在表里；而 "
        "`uk_users_phone` 只建在 `phone` 上，所以注销过的手机号永远占着唯一索引，再注册就 1062。handler 里又把所有 "
        "Create 错误都当 500 返回。\n\n"
        "最直接的改法：唯一索引改成 `(phone, deleted_at)`，注销的行 deleted_at 各不相同，不会冲突。先写迁移，再加集成测试。"
    )
    s.write("migrations/20260309103000_users_phone_unique_with_deleted_at.sql", '''-- +goose Up
ALTER TABLE users
    DROP INDEX uk_users_phone,
    ADD UNIQUE KEY uk_users_phone_deleted (phone, deleted_at);

-- +goose Down
ALTER TABLE users
    DROP INDEX uk_users_phone_deleted,
    ADD UNIQUE KEY uk_users_phone (phone);
''')
    s.write("internal/handler/auth_reregister_it_test.go", '''//go:build integration

package handler_test

import (
\t"testing"

\t"github.com/stretchr/testify/require"

\t"yuedu-server/internal/model"
\t"yuedu-server/internal/testutil"
)

func TestReregisterAfterDelete(t *testing.T) {
\tdb := testutil.MySQL(t)
\tu := &model.User{Phone: "13800000001"}
\trequire.NoError(t, db.Create(u).Error)
\trequire.NoError(t, db.Delete(u).Error) // 注销（软删除）
\trequire.NoError(t, db.Create(&model.User{Phone: "13800000001"}).Error, "注销后应能用同一手机号重新注册")
}

func TestNoTwoActiveUsersWithSamePhone(t *testing.T) {
\tdb := testutil.MySQL(t)
\trequire.NoError(t, db.Create(&model.User{Phone: "13800000002"}).Error)
\terr := db.Create(&model.User{Phone: "13800000002"}).Error
\trequire.Error(t, err, "同一手机号不能有两个未注销账号")
}
''')
    b1 = s.bash_bg("make test-integration", "集成测试（docker MySQL 8.0 + goose up）")
    s.say("集成测试要起 MySQL 容器，放后台跑。")
    s.task_notification(b1, "集成测试（docker MySQL 8.0 + goose up）", status="failed", exit_code=2, wait=150)
    s.read(f"/tmp/claude-1000/{s.cwd.replace('/', '-')}/tasks/{b1}.output", '''docker compose -f deploy/test/compose.yml up -d --wait mysql
 ✔ Container test-mysql-1  Healthy
goose -dir migrations mysql "root:test@tcp(127.0.0.1:13306)/yuedu_test?parseTime=true" up
2026/03/09 10:41:02 OK   20250301101500_create_users.sql (21.4ms)
2026/03/09 10:41:02 OK   20250412090000_create_books.sql (18.9ms)
2026/03/09 10:41:02 OK   20260309103000_users_phone_unique_with_deleted_at.sql (33.0ms)
2026/03/09 10:41:02 goose: successfully migrated database to version: 20260309103000
go test -tags integration -count=1 ./internal/...
ok  \tyuedu-server/internal/book\t1.204s
--- FAIL: TestNoTwoActiveUsersWithSamePhone (0.02s)
    auth_reregister_it_test.go:27: 
        \tError Trace:\t/data/code/yuedu-server/internal/handler/auth_reregister_it_test.go:27
        \tError:      \tAn error is expected but got nil.
        \tTest:       \tTestNoTwoActiveUsersWithSamePhone
        \tMessages:   \t同一手机号不能有两个未注销账号
FAIL
FAIL\tyuedu-server/internal/handler\t0.318s
ok  \tyuedu-server/internal/model\t0.087s
FAIL
make: *** [Makefile:31: test-integration] Error 1''')
    s.say(
        "重新注册那条过了，但 `TestNoTwoActiveUsersWithSamePhone` 挂了（输出中间那段）：两个**未注销**的账号用同一个手机号也插进去了。"
        "原因是 MySQL 的唯一索引里 NULL 和 NULL 不算重复，未注销的行 `deleted_at` 都是 NULL，`(phone, deleted_at)` 等于对它们不做约束。"
        "这个方案不行，删掉这个迁移。\n\n"
        "两个能用的办法：\n"
        "1. **`gorm.io/plugin/soft_delete`**：`deleted_at` 改成 BIGINT，0 表示未删除，唯一索引 `(phone, deleted_at)` 就成立了。"
        "代价是要改列类型，所有写 `deleted_at IS NULL` 的地方都要改成 `= 0`。\n"
        "2. **生成列**：`active_phone AS (IF(deleted_at IS NULL, phone, NULL)) STORED`，在它上面建唯一索引。注销的行是 NULL，"
        "不参与约束；未注销的行就是手机号本身。`deleted_at` 的含义不变，代码里不用动。\n\n"
        "你倾向哪个？"
    )
    s.bash("rm migrations/20260309103000_users_phone_unique_with_deleted_at.sql && git status --short", '''?? internal/handler/auth_reregister_it_test.go''', desc="删掉失败的迁移")
    s.turn_end()
    s.user("生成列。插件那个要改 deleted_at 类型，运营后台一堆报表 SQL 直接写死了 deleted_at IS NULL，改不动", wait=50)
    s.write("migrations/20260309111500_users_active_phone_unique.sql", '''-- +goose Up
-- 注销是软删除（deleted_at 非 NULL）。只对未注销账号要求手机号唯一：
-- (phone, deleted_at) 不行，MySQL 唯一索引里多个 NULL 不冲突；
-- 不用 gorm soft_delete 插件，因为运营后台的报表 SQL 写死了 deleted_at IS NULL。
ALTER TABLE users
    ADD COLUMN active_phone VARCHAR(20)
        GENERATED ALWAYS AS (IF(deleted_at IS NULL, phone, NULL)) STORED,
    DROP INDEX uk_users_phone,
    ADD UNIQUE KEY uk_users_active_phone (active_phone);

-- +goose Down
ALTER TABLE users
    DROP INDEX uk_users_active_phone,
    DROP COLUMN active_phone,
    ADD UNIQUE KEY uk_users_phone (phone);
''')
    s.edit("internal/model/user.go", '''\tPhone     string         `gorm:"size:20;not null"`''', '''\tPhone     string         `gorm:"size:20;not null"`
\t// 生成列，只读：未注销时等于 Phone，注销后为 NULL（唯一索引 uk_users_active_phone）
\tActivePhone *string      `gorm:"->;size:20"`''')
    s.say("另外 handler 里真正重复（两个未注销账号）的情况不该是 500，应该告诉客户端手机号已注册：")
    s.edit("internal/handler/auth.go", '''\tif err := h.db.WithContext(c).Create(u).Error; err != nil {
\t\th.log.Error("create user", zap.Error(err))''', '''\tif err := h.db.WithContext(c).Create(u).Error; err != nil {
\t\tvar me *mysql.MySQLError
\t\tif errors.As(err, &me) && me.Number == 1062 {
\t\t\tc.JSON(http.StatusConflict, Fail(10021, "手机号已注册"))
\t\t\treturn
\t\t}
\t\th.log.Error("create user", zap.Error(err))''')
    s.edit("internal/handler/auth_reregister_it_test.go", '''\trequire.Error(t, err, "同一手机号不能有两个未注销账号")
}''', '''\trequire.Error(t, err, "同一手机号不能有两个未注销账号")
}

func TestRegisterDuplicatePhoneIs409(t *testing.T) {
\tr := testutil.Router(t)
\ttestutil.Register(t, r, "13800000003")
\tw := testutil.Register(t, r, "13800000003")
\trequire.Equal(t, 409, w.Code)
\trequire.JSONEq(t, `{"code":10021,"msg":"手机号已注册","data":null}`, w.Body.String())
}''')
    b2 = s.bash_bg("make test-integration", "集成测试（生成列方案）")
    s.bash("go build ./... && go test ./internal/handler/...", '''ok  \tyuedu-server/internal/handler\t0.412s''', desc="编译 + handler 单测", secs=12)
    s.task_notification(b2, "集成测试（生成列方案）", wait=120)
    s.read(f"/tmp/claude-1000/{s.cwd.replace('/', '-')}/tasks/{b2}.output", '''docker compose -f deploy/test/compose.yml up -d --wait mysql
 ✔ Container test-mysql-1  Healthy
goose -dir migrations mysql "root:test@tcp(127.0.0.1:13306)/yuedu_test?parseTime=true" up
2026/03/09 11:32:47 OK   20250301101500_create_users.sql (20.8ms)
2026/03/09 11:32:47 OK   20250412090000_create_books.sql (19.2ms)
2026/03/09 11:32:47 OK   20260309111500_users_active_phone_unique.sql (41.7ms)
2026/03/09 11:32:47 goose: successfully migrated database to version: 20260309111500
go test -tags integration -count=1 ./internal/...
ok  \tyuedu-server/internal/book\t1.187s
ok  \tyuedu-server/internal/handler\t0.544s
ok  \tyuedu-server/internal/model\t0.091s''')
    s.say("全部通过。要不要我在测试环境的库上先跑一下迁移，让 QA 那边也能验证注销重注册？")
    s.bash_rejected("goose -dir migrations mysql \"$TEST_ENV_DSN\" up", desc="在测试环境执行迁移",
                    reason="别动测试环境的库，是几个组共用的，QA 明天在上面跑回归。迁移文件我走工单提给 DBA")
    s.say("好的，不碰测试环境。")
    s.bash("git add -A && git commit -qm 'users: 生成列 active_phone 唯一索引，注销后可重新注册；重复手机号返回 409' && git log --oneline -1",
           "5b8d2f0 users: 生成列 active_phone 唯一索引，注销后可重新注册；重复手机号返回 409", desc="提交")
    s.say(
        "小结：\n\n"
        "- **原因**：软删除的行还占着 `uk_users_phone(phone)`，注销过的手机号无法再注册；handler 把 1062 当 500。\n"
        "- **试过放弃**：唯一索引 `(phone, deleted_at)`——未注销行的 deleted_at 都是 NULL，MySQL 不把 NULL 当重复，两个未注销账号"
        "能用同一手机号（集成测试抓到）。\n"
        "- **方案**：生成列 `active_phone = IF(deleted_at IS NULL, phone, NULL)` + 唯一索引。没用 soft_delete 插件，因为运营后台"
        "报表 SQL 写死了 `deleted_at IS NULL`。\n"
        "- 重复手机号返回 409 / 10021「手机号已注册」。\n"
        "- `make test-integration` 全绿。迁移没在任何共享环境执行。\n\n"
        "**上线前要注意**：如果线上已经有两个未注销账号共用一个手机号（旧数据、并发注册），`ADD UNIQUE KEY` 会直接失败。"
        "建议 DBA 先查一遍：`SELECT phone, COUNT(*) FROM users WHERE deleted_at IS NULL GROUP BY phone HAVING COUNT(*) > 1`。"
    )
    s.turn_end()
    s.user(
        "查重的 SQL 我明天让 DBA 在从库上跑一下。还有个事不确定：老版本 App 是不是靠 500 那个错误文案来判断已注册的？改成 409 会不会出问题，我去问下王工",
        wait=70,
    )
    s.say("好。如果老版本确实依赖 50000 的文案，可以先按 App 版本号区分返回，等王工确认。")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Gin + GORM on MySQL 8 (goose migrations, integration tests in docker), Chinese",
        "a rule in the first prompt (no AutoMigrate, every schema change as a goose migration reviewed by the DBA)",
        "cause: GORM soft delete keeps the row, unique index on phone alone → 1062 on re-registration, returned as 500",
        "(phone, deleted_at) unique index tried; a background integration run fails in the middle of the output (NULLs don't collide), dropped",
        "decision generated column vs soft_delete plugin, the why given by the user (ops report SQL hard-codes deleted_at IS NULL)",
        "409 for a real duplicate; a second background run green; migration on the shared test DB rejected with a reason",
        "pre-deploy duplicate check in the wrap-up; todo (DBA runs it tomorrow) and a question for a colleague (old app versions)",
    ],
    "language": "zh",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["AutoMigrate"], ["goose"], ["DBA"]],
         "note": "不用 AutoMigrate，表结构变更一律写 goose 迁移文件，DBA 审。"},
        {"id": "b1", "type": "bug_note",
         "match": [["1062", "uk_users_phone"], ["软删除", "注销"]],
         "note": "注销是软删除，行还占着 uk_users_phone(phone)，同一手机号重新注册报 1062，handler 返回 500。"},
        {"id": "f1", "type": "failed_attempt",
         "match": [["(phone, deleted_at)", "phone, deleted_at"], ["NULL"]],
         "note": "唯一索引 (phone, deleted_at) 不行：未注销行 deleted_at 都是 NULL，MySQL 唯一索引不把 NULL 当重复，两个未注销账号能共用手机号。"},
        {"id": "d1", "type": "decision",
         "match": [["active_phone", "生成列"], ["运营后台", "deleted_at IS NULL", "报表"]],
         "note": "用生成列 active_phone = IF(deleted_at IS NULL, phone, NULL) 加唯一索引，不用 gorm soft_delete 插件：运营后台报表 SQL 写死了 deleted_at IS NULL。"},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "decision"],
         "match": [["409"], ["10021", "手机号已注册"]],
         "note": "真正重复的手机号返回 409 / 10021「手机号已注册」，不再是 500。"},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["测试环境"], ["共用", "QA", "回归"]],
         "note": "别在测试环境的库上跑迁移：几个组共用，QA 在跑回归；迁移走工单给 DBA。"},
        {"id": "t1", "type": "todo",
         "match": [["查重"], ["DBA"], ["从库", "明天"]],
         "note": "上线前 DBA 明天在从库上查一遍未注销账号里有没有重复手机号（否则 ADD UNIQUE KEY 会失败）。"},
        {"id": "q1", "type": "open_question",
         "match": [["老版本", "App"], ["王工"]],
         "note": "老版本 App 是否靠 500 的错误文案判断已注册、改成 409 会不会出问题？问王工。"},
        {"id": "v1", "type": "verified_command", "command": "make test-integration"},
        {"id": "v2", "type": "verified_command", "command": "go build ./... && go test ./internal/handler/...", "required": False},
    ],
    "secrets": [],
    "forbidden": [["task-notification"], ["doesn't want to proceed"]],
}
