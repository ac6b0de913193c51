-- Every statement the postgresql dialect writes for the reference tables of DialectStatementFilesTest.
-- Written by that test, which fails on a difference; write it again with -Dinbox.statements.write=true.

-- ==================== lease_jobs (LEASE form)

-- insert
INSERT INTO "lease_jobs" ("payload", "headers", "group_key", "priority", "published_at", "unique_key", "retry_after") VALUES (:payload, CAST(:headers AS jsonb), :group, :priority, :published, :key, :due);

-- unique insert
INSERT INTO "lease_jobs" ("payload", "headers", "group_key", "priority", "published_at", "unique_key", "retry_after") VALUES (:payload, CAST(:headers AS jsonb), :group, :priority, :published, :key, :due) ON CONFLICT DO NOTHING;

-- insert of 3 rows
INSERT INTO "lease_jobs" ("payload", "headers", "group_key", "priority", "published_at", "unique_key", "retry_after") VALUES (:payload, CAST(:headers AS jsonb), :group, :priority, :published, :key, :due), (:payload, CAST(:headers AS jsonb), :group, :priority, :published, :key, :due), (:payload, CAST(:headers AS jsonb), :group, :priority, :published, :key, :due);

-- depth
SELECT COUNT(*), COALESCE(SUM(CASE WHEN ("locked_until" IS NULL OR "locked_until" <= :now) AND ("retry_after" IS NULL OR "retry_after" <= :now) AND ("group_key" IS NULL OR "id" IN (SELECT MIN("id") FROM "lease_jobs" WHERE "group_key" IS NOT NULL GROUP BY "group_key")) THEN 1 ELSE 0 END), 0), MIN(CASE WHEN ("locked_until" IS NULL OR "locked_until" <= :now) AND ("retry_after" IS NULL OR "retry_after" <= :now) AND ("group_key" IS NULL OR "id" IN (SELECT MIN("id") FROM "lease_jobs" WHERE "group_key" IS NOT NULL GROUP BY "group_key")) THEN "published_at" END) FROM "lease_jobs";

-- dead letter
INSERT INTO "dead_jobs" ("id", "payload", "headers", "attempt", "error", "failed_at", "last_error") SELECT "id", "payload", "headers", :attempt, :error, :failed, COALESCE(:lastError, "last_error") FROM "lease_jobs" WHERE "id" = :id AND "locked_until" = :token;

-- dead letters counted
SELECT COUNT(*) FROM "dead_jobs";

-- cancel find
SELECT NULL, NULL FROM "lease_jobs" WHERE "id" = :id;

-- cancel delete
DELETE FROM "lease_jobs" WHERE "id" = :id AND ("locked_until" IS NULL OR "locked_until" <= :now);

-- notify
SELECT pg_notify(:channel, '');

-- listen
LISTEN inbox_lease_jobs;

-- unlisten
UNLISTEN *;

-- lease claim
WITH due AS (SELECT "id" FROM "lease_jobs" WHERE ("locked_until" IS NULL OR "locked_until" <= :now) AND ("retry_after" IS NULL OR "retry_after" <= :now) AND ("group_key" IS NULL OR "id" IN (SELECT MIN("id") FROM "lease_jobs" WHERE "group_key" IS NOT NULL GROUP BY "group_key")) ORDER BY "priority" DESC, "id" LIMIT :limit FOR UPDATE SKIP LOCKED) UPDATE "lease_jobs" AS q SET "locked_until" = :expiry, "attempt" = CASE WHEN "attempt" < 2147483647 THEN "attempt" + 1 ELSE "attempt" END FROM due WHERE q."id" = due."id" RETURNING q."id", q."attempt" - 1, q."payload", q."headers"::text, q."priority";

-- lease extend
UPDATE "lease_jobs" SET "locked_until" = :expiry WHERE "id" = :id AND "locked_until" = :token;

-- ack
DELETE FROM "lease_jobs" WHERE "id" = :id AND "locked_until" = :token;

-- ack all
DELETE FROM "lease_jobs" AS q USING unnest(CAST(:ids AS bigint[]), CAST(:tokens AS varchar[])) AS a(id, token) WHERE q."id" = a.id AND q."locked_until" = CAST(a.token AS timestamptz) RETURNING q."id";

-- lease claim carrying acks
WITH due AS (SELECT "id" FROM "lease_jobs" WHERE ("locked_until" IS NULL OR "locked_until" <= :now) AND ("retry_after" IS NULL OR "retry_after" <= :now) AND ("group_key" IS NULL OR "id" IN (SELECT MIN("id") FROM "lease_jobs" WHERE "group_key" IS NOT NULL GROUP BY "group_key")) ORDER BY "priority" DESC, "id" LIMIT :limit FOR UPDATE SKIP LOCKED) UPDATE "lease_jobs" AS q SET "locked_until" = :expiry, "attempt" = CASE WHEN "attempt" < 2147483647 THEN "attempt" + 1 ELSE "attempt" END FROM due WHERE q."id" = due."id" RETURNING q."id", q."attempt" - 1, q."payload", q."headers"::text, q."priority"; BEGIN; COMMIT; DELETE FROM "lease_jobs" AS q USING unnest(CAST(:ids AS bigint[]), CAST(:tokens AS varchar[])) AS a(id, token) WHERE q."id" = a.id AND q."locked_until" = CAST(a.token AS timestamptz) RETURNING q."id";

-- retry
UPDATE "lease_jobs" SET "locked_until" = NULL, "retry_after" = :due, "last_error" = COALESCE(:lastError, "last_error") WHERE "id" = :id AND "locked_until" = :token;

-- drop
DELETE FROM "lease_jobs" WHERE "id" = :id AND "locked_until" = :token;

-- release
UPDATE "lease_jobs" SET "locked_until" = NULL, "attempt" = "attempt" - 1 WHERE "id" = :id AND "locked_until" = :token;

-- ==================== lease_done_jobs (LEASE form)

-- insert
INSERT INTO "lease_done_jobs" ("payload", "locked_until") VALUES (:payload, :due);

-- insert of 3 rows
INSERT INTO "lease_done_jobs" ("payload", "locked_until") VALUES (:payload, :due), (:payload, :due), (:payload, :due);

-- depth
SELECT COUNT(*), COALESCE(SUM(CASE WHEN ("locked_until" IS NULL OR "locked_until" <= :now) AND "processed_at" IS NULL THEN 1 ELSE 0 END), 0), NULL FROM "lease_done_jobs" WHERE "processed_at" IS NULL;

-- dead letter
INSERT INTO "dead_jobs" ("id", "payload", "attempt", "error", "failed_at") SELECT "id", "payload", :attempt, :error, :failed FROM "lease_done_jobs" WHERE "id" = :id AND "locked_until" = :token;

-- dead letters counted
SELECT COUNT(*) FROM "dead_jobs";

-- cancel find
SELECT "processed_at", NULL FROM "lease_done_jobs" WHERE "id" = :id;

-- cancel delete
DELETE FROM "lease_done_jobs" WHERE "id" = :id AND ("locked_until" IS NULL OR "locked_until" <= :now) AND "processed_at" IS NULL;

-- notify
SELECT pg_notify(:channel, '');

-- listen
LISTEN inbox_lease_done_jobs;

-- unlisten
UNLISTEN *;

-- lease claim
WITH due AS (SELECT "id" FROM "lease_done_jobs" WHERE ("locked_until" IS NULL OR "locked_until" <= :now) AND "processed_at" IS NULL ORDER BY "id" LIMIT :limit FOR UPDATE SKIP LOCKED) UPDATE "lease_done_jobs" AS q SET "locked_until" = :expiry FROM due WHERE q."id" = due."id" RETURNING q."id", 0, q."payload", NULL;

-- lease extend
UPDATE "lease_done_jobs" SET "locked_until" = :expiry WHERE "id" = :id AND "locked_until" = :token;

-- ack
UPDATE "lease_done_jobs" SET "processed_at" = :processed, "locked_until" = NULL WHERE "id" = :id AND "locked_until" = :token;

-- ack all
UPDATE "lease_done_jobs" AS q SET "processed_at" = :processed, "locked_until" = NULL FROM unnest(CAST(:ids AS bigint[]), CAST(:tokens AS varchar[])) AS a(id, token) WHERE q."id" = a.id AND q."locked_until" = CAST(a.token AS timestamptz) RETURNING q."id";

-- lease claim carrying acks
WITH due AS (SELECT "id" FROM "lease_done_jobs" WHERE ("locked_until" IS NULL OR "locked_until" <= :now) AND "processed_at" IS NULL ORDER BY "id" LIMIT :limit FOR UPDATE SKIP LOCKED) UPDATE "lease_done_jobs" AS q SET "locked_until" = :expiry FROM due WHERE q."id" = due."id" RETURNING q."id", 0, q."payload", NULL; BEGIN; COMMIT; UPDATE "lease_done_jobs" AS q SET "processed_at" = :processed, "locked_until" = NULL FROM unnest(CAST(:ids AS bigint[]), CAST(:tokens AS varchar[])) AS a(id, token) WHERE q."id" = a.id AND q."locked_until" = CAST(a.token AS timestamptz) RETURNING q."id";

-- retry
UPDATE "lease_done_jobs" SET "locked_until" = :due WHERE "id" = :id AND "locked_until" = :token;

-- drop
DELETE FROM "lease_done_jobs" WHERE "id" = :id AND "locked_until" = :token;

-- release
UPDATE "lease_done_jobs" SET "locked_until" = NULL WHERE "id" = :id AND "locked_until" = :token;

-- ==================== row_lock_jobs (ROW_LOCK form)

-- insert
INSERT INTO "row_lock_jobs" ("payload", "headers", "group_key", "priority", "retry_after") VALUES (:payload, CAST(:headers AS jsonb), :group, :priority, :due);

-- insert of 3 rows
INSERT INTO "row_lock_jobs" ("payload", "headers", "group_key", "priority", "retry_after") VALUES (:payload, CAST(:headers AS jsonb), :group, :priority, :due), (:payload, CAST(:headers AS jsonb), :group, :priority, :due), (:payload, CAST(:headers AS jsonb), :group, :priority, :due);

-- depth
SELECT COUNT(*), COALESCE(SUM(CASE WHEN ("retry_after" IS NULL OR "retry_after" <= :now) AND ("group_key" IS NULL OR "id" IN (SELECT MIN("id") FROM "row_lock_jobs" WHERE "group_key" IS NOT NULL GROUP BY "group_key")) THEN 1 ELSE 0 END), 0), NULL FROM "row_lock_jobs";

-- dead letter
INSERT INTO "dead_jobs" ("id", "payload", "headers", "attempt", "error", "failed_at") SELECT "id", "payload", "headers", :attempt, :error, :failed FROM "row_lock_jobs" WHERE "id" = :id;

-- dead letters counted
SELECT COUNT(*) FROM "dead_jobs";

-- cancel find
SELECT NULL, NULL FROM "row_lock_jobs" WHERE "id" = :id;

-- cancel lock
SELECT "id" FROM "row_lock_jobs" WHERE "id" = :id FOR UPDATE SKIP LOCKED;

-- cancel delete
DELETE FROM "row_lock_jobs" WHERE "id" = :id;

-- notify
SELECT pg_notify(:channel, '');

-- listen
LISTEN inbox_row_lock_jobs;

-- unlisten
UNLISTEN *;

-- row lock claim
WITH due AS (SELECT "id" FROM "row_lock_jobs" WHERE ("retry_after" IS NULL OR "retry_after" <= :now) AND ("group_key" IS NULL OR "id" IN (SELECT MIN("id") FROM "row_lock_jobs" WHERE "group_key" IS NOT NULL GROUP BY "group_key")) ORDER BY "priority" DESC, "id" LIMIT :limit FOR UPDATE SKIP LOCKED) UPDATE "row_lock_jobs" AS q SET "attempt" = CASE WHEN "attempt" < 2147483647 THEN "attempt" + 1 ELSE "attempt" END FROM due WHERE q."id" = due."id" RETURNING q."id", q."attempt" - 1, q."payload", q."headers"::text, q."priority";

-- ack
DELETE FROM "row_lock_jobs" WHERE "id" = :id;

-- ack all
DELETE FROM "row_lock_jobs" AS q USING unnest(CAST(:ids AS bigint[])) AS a(id) WHERE q."id" = a.id RETURNING q."id";

-- acks and commit
DELETE FROM "row_lock_jobs" AS q USING unnest(CAST(:ids AS bigint[])) AS a(id) WHERE q."id" = a.id RETURNING q."id"; COMMIT;

-- acks, commit and the next claim
DELETE FROM "row_lock_jobs" AS q USING unnest(CAST(:ids AS bigint[])) AS a(id) WHERE q."id" = a.id RETURNING q."id"; COMMIT; BEGIN; WITH due AS (SELECT "id" FROM "row_lock_jobs" WHERE ("retry_after" IS NULL OR "retry_after" <= :now) AND ("group_key" IS NULL OR "id" IN (SELECT MIN("id") FROM "row_lock_jobs" WHERE "group_key" IS NOT NULL GROUP BY "group_key")) ORDER BY "priority" DESC, "id" LIMIT :limit FOR UPDATE SKIP LOCKED) UPDATE "row_lock_jobs" AS q SET "attempt" = CASE WHEN "attempt" < 2147483647 THEN "attempt" + 1 ELSE "attempt" END FROM due WHERE q."id" = due."id" RETURNING q."id", q."attempt" - 1, q."payload", q."headers"::text, q."priority";

-- retry
UPDATE "row_lock_jobs" SET "retry_after" = :due WHERE "id" = :id;

-- drop
DELETE FROM "row_lock_jobs" WHERE "id" = :id;

-- row lock relock
SELECT "id" FROM "row_lock_jobs" WHERE "id" = :id AND "attempt" = :attempt FOR UPDATE SKIP LOCKED;

-- row lock count
UPDATE "row_lock_jobs" SET "attempt" = CASE WHEN "attempt" < 2147483647 THEN "attempt" + 1 ELSE "attempt" END WHERE "id" = :id;

-- ==================== advisory_jobs (ADVISORY form)

-- insert
INSERT INTO "advisory_jobs" ("payload", "headers", "retry_after") VALUES (:payload, CAST(:headers AS jsonb), :due);

-- insert of 3 rows
INSERT INTO "advisory_jobs" ("payload", "headers", "retry_after") VALUES (:payload, CAST(:headers AS jsonb), :due), (:payload, CAST(:headers AS jsonb), :due), (:payload, CAST(:headers AS jsonb), :due);

-- depth
SELECT COUNT(*), COALESCE(SUM(CASE WHEN ("retry_after" IS NULL OR "retry_after" <= :now) THEN 1 ELSE 0 END), 0), NULL FROM "advisory_jobs";

-- dead letter
INSERT INTO "dead_jobs" ("id", "payload", "headers", "attempt", "error", "failed_at") SELECT "id", "payload", "headers", :attempt, :error, :failed FROM "advisory_jobs" WHERE "id" = :id;

-- dead letters counted
SELECT COUNT(*) FROM "dead_jobs";

-- cancel find
SELECT NULL, COALESCE("advisory_lock"::text, "id"::text) FROM "advisory_jobs" WHERE "id" = :id;

-- cancel lock
SELECT c.k FROM (SELECT COALESCE("advisory_lock"::text, "id"::text) AS k FROM "advisory_jobs" WHERE "id" = :id LIMIT 1) c WHERE pg_try_advisory_lock(hashtextextended(:prefix || c.k, 0));

-- cancel delete
DELETE FROM "advisory_jobs" WHERE "id" = :id;

-- cancel unlock
SELECT pg_advisory_unlock(hashtextextended(:key, 0));

-- notify
SELECT pg_notify(:channel, '');

-- listen
LISTEN inbox_advisory_jobs;

-- unlisten
UNLISTEN *;

-- advisory candidates
SELECT "id", COALESCE("advisory_lock"::text, "id"::text) FROM "advisory_jobs" WHERE ("retry_after" IS NULL OR "retry_after" <= :now) ORDER BY "id" LIMIT :limit;

-- advisory lock candidates
SELECT c.id, c.k FROM (SELECT "id" AS id, COALESCE("advisory_lock"::text, "id"::text) AS k FROM "advisory_jobs" WHERE ("retry_after" IS NULL OR "retry_after" <= :now) ORDER BY "id" LIMIT :scan) c WHERE pg_try_advisory_lock(hashtextextended(:prefix || c.k, 0)) LIMIT :limit;

-- advisory take
SELECT "id", "attempt", "payload", "headers"::text FROM "advisory_jobs" WHERE "id" = :id AND ("retry_after" IS NULL OR "retry_after" <= :now);

-- advisory take of a list of rows
SELECT "id", "attempt", "payload", "headers"::text FROM "advisory_jobs" WHERE "id" = ANY(CAST(:rows AS bigint[])) AND ("retry_after" IS NULL OR "retry_after" <= :now);

-- advisory count
UPDATE "advisory_jobs" SET "attempt" = CASE WHEN "attempt" < 2147483647 THEN "attempt" + 1 ELSE "attempt" END WHERE "id" = :id;

-- advisory count of a list of rows
UPDATE "advisory_jobs" SET "attempt" = CASE WHEN "attempt" < 2147483647 THEN "attempt" + 1 ELSE "attempt" END WHERE "id" = ANY(CAST(:rows AS bigint[]));

-- advisory unlock
SELECT pg_advisory_unlock(hashtextextended(:key, 0));

-- advisory unlock all
SELECT pg_advisory_unlock_all();

-- ack
DELETE FROM "advisory_jobs" WHERE "id" = :id;

-- ack all
DELETE FROM "advisory_jobs" AS q USING unnest(CAST(:ids AS bigint[])) AS a(id) WHERE q."id" = a.id RETURNING q."id";

-- retry
UPDATE "advisory_jobs" SET "retry_after" = :due WHERE "id" = :id;

-- drop
DELETE FROM "advisory_jobs" WHERE "id" = :id;
