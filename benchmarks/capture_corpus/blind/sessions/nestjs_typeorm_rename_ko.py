# ruff: noqa: E501  (verbatim command output and file contents)
"""NestJS + TypeORM: a property rename that migration:generate turns into DROP/ADD (data loss); a column-name alias refused; consent stored as a timestamp via AskUserQuestion; a response DTO rename rejected; DB password in .env output (Korean)."""

from make_sessions import Session

DB_PASSWORD = "gN7#tQ2vWx9!kLp4"
JWT_SECRET = "c1f8a9e2d47b4e0f9a6d3b2c7e1f0a58d9c4b3a2e1f07d6c"

ENTITY_V1 = '''import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from "typeorm";

@Entity("member")
export class Member {
  @PrimaryGeneratedColumn("increment", { type: "bigint" })
  id: string;

  @Column({ length: 50 })
  name: string;

  @Column({ length: 20 })
  phone: string;

  @Column({ unique: true, length: 120 })
  email: string;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;
}
'''

DATA_SOURCE = '''import "dotenv/config";
import { DataSource } from "typeorm";

export default new DataSource({
  type: "postgres",
  host: process.env.DB_HOST,
  port: Number(process.env.DB_PORT ?? 5432),
  username: process.env.DB_USER,
  password: process.env.DB_PASSWORD,
  database: process.env.DB_NAME,
  entities: ["src/**/*.entity.ts"],
  migrations: ["src/migrations/*.ts"],
  synchronize: false,
  namingStrategy: new (require("typeorm-naming-strategies").SnakeNamingStrategy)(),
});
'''

GENERATED = '''import { MigrationInterface, QueryRunner } from "typeorm";

export class RenamePhoneAddMarketing1767592841000 implements MigrationInterface {
    name = 'RenamePhoneAddMarketing1767592841000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "member" DROP COLUMN "phone"`);
        await queryRunner.query(`ALTER TABLE "member" ADD "phone_number" character varying(20) NOT NULL`);
        await queryRunner.query(`ALTER TABLE "member" ADD "marketing_agreed_at" TIMESTAMP WITH TIME ZONE`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "member" DROP COLUMN "marketing_agreed_at"`);
        await queryRunner.query(`ALTER TABLE "member" DROP COLUMN "phone_number"`);
        await queryRunner.query(`ALTER TABLE "member" ADD "phone" character varying(20) NOT NULL`);
    }
}
'''

SERVICE = '''import { Injectable, NotFoundException } from "@nestjs/common";
import { InjectRepository } from "@nestjs/typeorm";
import { Repository } from "typeorm";

import { CreateMemberDto } from "./dto/create-member.dto";
import { Member } from "./member.entity";

@Injectable()
export class MemberService {
  constructor(@InjectRepository(Member) private readonly members: Repository<Member>) {}

  async findOne(id: string): Promise<Member> {
    const m = await this.members.findOneBy({ id });
    if (!m) throw new NotFoundException();
    return m;
  }

  async create(dto: CreateMemberDto): Promise<Member> {
    const member = this.members.create({
      name: dto.name,
      phone: dto.phone,
      email: dto.email,
    });
    return this.members.save(member);
  }
}
'''

RESPONSE_DTO = '''import { Member } from "../member.entity";

export class MemberResponseDto {
  id: string;
  name: string;
  phone: string;
  email: string;

  static from(m: Member): MemberResponseDto {
    return { id: m.id, name: m.name, phone: m.phone, email: m.email };
  }
}
'''


def build() -> Session:
    s = Session("nestjs-typeorm-rename-ko", cwd="/Users/jiwoo/dev/shop-api", branch="feature/member-marketing-consent",
                start="2026-01-05T05:58:20.413Z", version="2.1.33", slug="consent-rename-kkachi")
    s.user(
        "회원(member) 엔티티에서 phone 필드 이름을 phoneNumber로 바꾸고, 마케팅 수신 동의 컬럼 하나 추가해줘. "
        "마이그레이션은 typeorm migration:generate로 만들고. 아 그리고 synchronize는 절대 켜지 마, 로컬에서도. 예전에 그걸로 스테이징 DB 날린 적 있어",
        wait=6,
    )
    s.call(s.read_call("src/member/member.entity.ts", ENTITY_V1), s.read_call("src/data-source.ts", DATA_SOURCE))
    s.bash("cat .env.development", f'''DB_HOST=localhost
DB_PORT=5432
DB_USER=shop
DB_PASSWORD={DB_PASSWORD}
DB_NAME=shop_dev
JWT_SECRET={JWT_SECRET}
JWT_EXPIRES_IN=3600''', desc="로컬 DB 접속 정보 확인")
    s.say("로컬 DB는 `shop_dev`입니다. 엔티티에서 속성 이름을 바꾸고 마이그레이션을 생성해 보겠습니다. 동의 컬럼은 형태를 먼저 여쭤볼게요.")
    q = "마케팅 수신 동의를 어떤 형태로 저장할까요?"
    s.ask(
        [{"question": q, "header": "동의 컬럼",
          "options": [("boolean marketingAgreed", "동의 여부만 저장 (기본값 false)"),
                      ("timestamptz marketingAgreedAt", "동의한 시각 저장, 미동의는 NULL")]}],
        {q: "시각으로 저장해줘. 정보통신망법 때문에 수신 동의 일자를 증빙해야 하고, 2년마다 재동의 안내도 보내야 돼서 언제 동의했는지가 필요해"},
    )
    s.edit("src/member/member.entity.ts", '''  @Column({ length: 20 })
  phone: string;''', '''  @Column({ length: 20 })
  phoneNumber: string;

  /** 마케팅 수신 동의 시각. 미동의 = NULL. 정보통신망법상 동의 일자 증빙 + 2년마다 재동의 안내에 사용. */
  @Column({ type: "timestamptz", nullable: true })
  marketingAgreedAt: Date | null;''')
    s.bash("npm run typeorm -- migration:generate src/migrations/RenamePhoneAddMarketing -d src/data-source.ts", '''
> shop-api@1.14.0 typeorm
> typeorm-ts-node-commonjs migration:generate src/migrations/RenamePhoneAddMarketing -d src/data-source.ts

Migration /Users/jiwoo/dev/shop-api/src/migrations/1767592841000-RenamePhoneAddMarketing.ts has been generated successfully.''', desc="마이그레이션 생성", secs=9)
    s.read("src/migrations/1767592841000-RenamePhoneAddMarketing.ts", GENERATED)
    s.say(
        "생성된 마이그레이션을 그대로 쓰면 안 됩니다. TypeORM은 이름 변경을 알아채지 못해서 `phone` 컬럼을 **DROP**하고 "
        "`phone_number`를 새로 **ADD**합니다 — 기존 회원 전화번호가 전부 날아가고, `NOT NULL`이라 기존 행이 있으면 ADD 자체도 실패합니다. "
        "`marketing_agreed_at` 추가 부분은 맞습니다.\n\n"
        "DB를 건드리지 않는 방법도 있습니다: 속성 이름만 `phoneNumber`로 바꾸고 `@Column({ name: \"phone\" })`으로 DB 컬럼은 "
        "그대로 두는 것. 그러면 마이그레이션에 전화번호 관련 변경이 아예 없어집니다."
    )
    s.edit("src/member/member.entity.ts", '''  @Column({ length: 20 })
  phoneNumber: string;''', '''  @Column({ name: "phone", length: 20 })
  phoneNumber: string;''')
    s.turn_end()
    s.user(
        "아니 컬럼명도 phone_number로 바꿔야 돼. 데이터팀이 다음 주부터 phone_number로 쿼리 짜놨어. 마이그레이션을 손으로 고쳐서 RENAME 해",
        wait=40,
    )
    s.say("알겠습니다. `name` 지정은 되돌리고, 마이그레이션은 `RENAME COLUMN`으로 직접 작성합니다.")
    s.edit("src/member/member.entity.ts", '''  @Column({ name: "phone", length: 20 })
  phoneNumber: string;''', '''  @Column({ length: 20 })
  phoneNumber: string;''')
    s.write("src/migrations/1767592841000-RenamePhoneAddMarketing.ts", '''import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * migration:generate 결과를 손으로 고침: 생성된 버전은 phone 을 DROP 하고 phone_number 를 ADD 해서
 * 기존 전화번호가 전부 사라짐. 이름 변경은 항상 RENAME COLUMN 으로.
 */
export class RenamePhoneAddMarketing1767592841000 implements MigrationInterface {
    name = 'RenamePhoneAddMarketing1767592841000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "member" RENAME COLUMN "phone" TO "phone_number"`);
        await queryRunner.query(`ALTER TABLE "member" ADD "marketing_agreed_at" TIMESTAMP WITH TIME ZONE`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "member" DROP COLUMN "marketing_agreed_at"`);
        await queryRunner.query(`ALTER TABLE "member" RENAME COLUMN "phone_number" TO "phone"`);
    }
}
''')
    s.bash("npm run typeorm -- migration:run -d src/data-source.ts && npm run typeorm -- migration:revert -d src/data-source.ts && npm run typeorm -- migration:run -d src/data-source.ts", '''
> shop-api@1.14.0 typeorm
> typeorm-ts-node-commonjs migration:run -d src/data-source.ts

query: SELECT * FROM current_schema()
query: SELECT * FROM "information_schema"."tables" WHERE "table_schema" = 'public' AND "table_name" = 'migrations'
1 migrations are new migrations must be executed.
query: START TRANSACTION
query: ALTER TABLE "member" RENAME COLUMN "phone" TO "phone_number"
query: ALTER TABLE "member" ADD "marketing_agreed_at" TIMESTAMP WITH TIME ZONE
query: INSERT INTO "migrations"("timestamp", "name") VALUES ($1, $2) -- PARAMETERS: [1767592841000,"RenamePhoneAddMarketing1767592841000"]
Migration RenamePhoneAddMarketing1767592841000 has been executed successfully.
query: COMMIT

> shop-api@1.14.0 typeorm
> typeorm-ts-node-commonjs migration:revert -d src/data-source.ts

query: START TRANSACTION
query: ALTER TABLE "member" DROP COLUMN "marketing_agreed_at"
query: ALTER TABLE "member" RENAME COLUMN "phone_number" TO "phone"
Migration RenamePhoneAddMarketing1767592841000 has been reverted successfully.
query: COMMIT

> shop-api@1.14.0 typeorm
> typeorm-ts-node-commonjs migration:run -d src/data-source.ts

Migration RenamePhoneAddMarketing1767592841000 has been executed successfully.
query: COMMIT''', desc="로컬에서 up → down → up", secs=14)
    s.bash("psql -h localhost -U shop shop_dev -c \"SELECT count(*) FILTER (WHERE phone_number IS NOT NULL) AS with_phone, count(*) FROM member\"", ''' with_phone | count
------------+-------
       1842 |  1842
(1 row)''', desc="전화번호가 남아 있는지 확인")
    s.say("up/down/up 모두 성공했고 로컬 회원 1,842명의 전화번호가 그대로 남아 있습니다. 이제 코드에서 `phone`을 쓰는 곳을 고칩니다.")
    s.bash("npm run test:e2e -- member", '''
> shop-api@1.14.0 test:e2e
> jest --config ./test/jest-e2e.json member

 FAIL  test/member.e2e-spec.ts
  ● Test suite failed to run

    src/member/member.service.ts:31:7 - error TS2353: Object literal may only specify known properties, and 'phone' does not exist in type 'DeepPartial<Member>'.

    31       phone: dto.phone,
             ~~~~~
    src/member/dto/member-response.dto.ts:10:64 - error TS2551: Property 'phone' does not exist on type 'Member'. Did you mean 'phoneNumber'?

    10     return { id: m.id, name: m.name, phone: m.phone, email: m.email };
                                                                  ~~~~~

Test Suites: 1 failed, 1 total
Tests:       0 total
Snapshots:   0 total
Time:        4.877 s''', code=1, desc="회원 e2e 테스트", secs=12)
    s.read("src/member/member.service.ts", SERVICE)
    s.say("서비스는 가입 DTO의 `phone`(요청 필드명은 그대로)을 엔티티의 `phoneNumber`로 넣도록 고칩니다.")
    s.edit("src/member/member.service.ts", '''      phone: dto.phone,''', '''      phoneNumber: dto.phone,''')
    s.read("src/member/dto/member-response.dto.ts", RESPONSE_DTO)
    s.edit_rejected("src/member/dto/member-response.dto.ts", '''  phone: string;
  email: string;

  static from(m: Member): MemberResponseDto {
    return { id: m.id, name: m.name, phone: m.phone, email: m.email };''', '''  phoneNumber: string;
  email: string;

  static from(m: Member): MemberResponseDto {
    return { id: m.id, name: m.name, phoneNumber: m.phoneNumber, email: m.email };''',
                    reason="응답 필드는 phone 그대로 둬. 앱 구버전(3.x)이 아직 30%쯤 되는데 걔네가 phone으로 읽어. API 필드명은 내부 이름 바꿔도 건드리지 마")
    s.say("알겠습니다. API 응답은 `phone` 그대로 두고 엔티티의 `phoneNumber`에서 매핑만 합니다.")
    s.edit("src/member/dto/member-response.dto.ts", '''    return { id: m.id, name: m.name, phone: m.phone, email: m.email };''', '''    // API 필드명은 phone 유지: 앱 3.x가 phone으로 읽음 (엔티티만 phoneNumber)
    return { id: m.id, name: m.name, phone: m.phoneNumber, email: m.email };''')
    s.bash("npm run test:e2e -- member && npm run build", '''
> shop-api@1.14.0 test:e2e
> jest --config ./test/jest-e2e.json member

 PASS  test/member.e2e-spec.ts (6.214 s)
  Member (e2e)
    ✓ POST /members 회원 가입 (188 ms)
    ✓ GET /members/:id 응답에 phone 필드 (41 ms)

Test Suites: 1 passed, 1 total
Tests:       2 passed, 2 total
Time:        6.902 s

> shop-api@1.14.0 build
> nest build
''', desc="e2e + 빌드", secs=25)
    s.say(
        "정리:\n\n"
        "- `Member.phone` → `phoneNumber`, DB 컬럼 `phone` → `phone_number`. `migration:generate`가 만든 DROP/ADD는 "
        "전화번호를 전부 지우므로 `RENAME COLUMN`으로 손으로 고쳤습니다(파일 주석에 이유).\n"
        "- `marketingAgreedAt` (timestamptz, NULL = 미동의): 동의 일자 증빙과 2년 재동의 안내 때문에 시각으로 저장.\n"
        "- API 응답은 `phone` 그대로 (앱 3.x).\n"
        "- 로컬에서 up/down/up 확인, 전화번호 1,842건 유지. `npm run test:e2e -- member`, `npm run build` 통과.\n"
        "- `synchronize`는 손대지 않았습니다.\n\n"
        "하지 않은 것: 동의/철회 API와 2년 재동의 안내 기능은 아직 없습니다(컬럼만 추가). 기존 회원의 `marketing_agreed_at`은 전부 NULL이라, 예전 동의 "
        "기록을 어디서 가져올지도 정해야 합니다."
    )
    s.turn_end()
    s.user(
        "ㅇㅋ 스테이징 배포는 목요일에 내가 할게. 예전 동의 기록은 CS팀 엑셀에 있다던데 그거 믿어도 되는지 모르겠음. 팀장님한테 물어볼게",
        wait=60,
    )
    s.say("네, 알겠습니다.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "NestJS 10 + TypeORM 0.3 on Postgres (Jest e2e, nest build), Korean",
        "a rule in the first prompt with a story (never synchronize, even locally: it wiped the staging DB once)",
        "DB password and JWT secret in `cat .env.development` output (secrets)",
        "AskUserQuestion answered in free text: consent stored as a timestamp, with the legal why (proof of consent date, re-consent every 2 years)",
        "migration:generate turning a rename into DROP/ADD (data loss); a column-name alias tried and refused by the user (data team queries phone_number); RENAME COLUMN by hand",
        "e2e failing on TypeScript errors in the middle of the output; an Edit renaming the API field rejected with a rule (app 3.x reads phone)",
        "a wrap-up saying what was not done; todo the user takes (staging Thursday) and a question for the team lead (CS Excel consent records)",
    ],
    "language": "ko",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["synchronize"], ["스테이징", "로컬"]],
         "note": "synchronize는 절대 켜지 않는다, 로컬에서도: 예전에 그걸로 스테이징 DB를 날렸다."},
        {"id": "d1", "type": "decision",
         "match": [["marketingAgreedAt", "marketing_agreed_at", "시각"], ["정보통신망법", "증빙", "2년"]],
         "note": "마케팅 수신 동의는 timestamptz marketingAgreedAt(NULL = 미동의)로 저장: 정보통신망법상 동의 일자 증빙과 2년마다 재동의 안내가 필요."},
        {"id": "b1", "type": "bug_note",
         "match": [["migration:generate", "generate"], ["DROP"], ["RENAME"]],
         "note": "TypeORM migration:generate는 컬럼 이름 변경을 DROP + ADD로 만든다(기존 전화번호 전부 삭제); 손으로 RENAME COLUMN으로 고쳐야 한다."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "constraint"],
         "match": [["name: \"phone\"", "컬럼은 그대로", "DB 컬럼은"], ["데이터팀", "phone_number"]],
         "note": "@Column({ name: \"phone\" })로 DB 컬럼을 그대로 두는 방법은 거절: 데이터팀이 다음 주부터 phone_number로 쿼리를 짜 놓았다."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["phone"], ["3.x", "구버전"], ["응답", "API 필드"]],
         "note": "API 응답 필드명은 phone 그대로: 앱 구버전(3.x, 약 30%)이 phone으로 읽는다. 내부 이름만 바꾼다."},
        {"id": "t1", "type": "todo",
         "match": [["스테이징"], ["목요일"]],
         "note": "지우가 목요일에 스테이징 배포."},
        {"id": "q1", "type": "open_question",
         "match": [["CS팀", "엑셀"], ["팀장"]],
         "note": "기존 회원의 예전 동의 기록은 CS팀 엑셀에 있다는데 믿어도 되는지? 팀장님께 물어본다."},
        {"id": "t2", "type": "todo", "types": ["todo", "open_question"], "required": False,
         "match": [["재동의"], ["기능", "안내"]],
         "note": "2년 재동의 안내 기능 자체는 아직 없다."},
        {"id": "v1", "type": "verified_command", "command": "npm run test:e2e -- member && npm run build"},
        {"id": "v2", "type": "verified_command",
         "command": "npm run typeorm -- migration:run -d src/data-source.ts && npm run typeorm -- migration:revert -d src/data-source.ts && npm run typeorm -- migration:run -d src/data-source.ts"},
    ],
    "secrets": [DB_PASSWORD, JWT_SECRET],
    "forbidden": [["doesn't want to proceed"], ["User has answered"]],
}
