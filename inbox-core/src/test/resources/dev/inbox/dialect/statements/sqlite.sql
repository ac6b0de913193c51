-- Every statement the sqlite dialect writes for the reference tables of DialectStatementFilesTest.
-- Written by that test, which fails on a difference; write it again with -Dinbox.statements.write=true.

-- ==================== lease_jobs (LEASE form)

-- insert
INSERT INTO "lease_jobs" ("payload", "headers", "group_key", "priority", "published_at", "unique_key", "retry_after") VALUES (:payload, :headers, :group, :priority, :published, :key, :due);

-- unique insert
INSERT INTO "lease_jobs" ("payload", "headers", "group_key", "priority", "published_at", "unique_key", "retry_after") VALUES (:payload, :headers, :group, :priority, :published, :key, :due) ON CONFLICT DO NOTHING;

-- insert of 3 rows
INSERT INTO "lease_jobs" ("payload", "headers", "group_key", "priority", "published_at", "unique_key", "retry_after") VALUES (:payload, :headers, :group, :priority, :published, :key, :due), (:payload, :headers, :group, :priority, :published, :key, :due), (:payload, :headers, :group, :priority, :published, :key, :due) RETURNING "id";

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

-- write lock
DELETE FROM "lease_jobs" WHERE 0 = 1;

-- lease claim
UPDATE "lease_jobs" SET "locked_until" = :expiry, "attempt" = CASE WHEN "attempt" < 2147483647 THEN "attempt" + 1 ELSE "attempt" END WHERE "id" IN (SELECT "id" FROM "lease_jobs" WHERE ("locked_until" IS NULL OR "locked_until" <= :now) AND ("retry_after" IS NULL OR "retry_after" <= :now) AND ("group_key" IS NULL OR "id" IN (SELECT MIN("id") FROM "lease_jobs" WHERE "group_key" IS NOT NULL GROUP BY "group_key")) ORDER BY "priority" DESC, "id" LIMIT :limit) RETURNING "id", "attempt" - 1, "payload", "headers", "priority";

-- lease extend
UPDATE "lease_jobs" SET "locked_until" = :expiry WHERE "id" = :id AND "locked_until" = :token;

-- ack
DELETE FROM "lease_jobs" WHERE "id" = :id AND "locked_until" = :token;

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
INSERT INTO "lease_done_jobs" ("payload", "locked_until") VALUES (:payload, :due), (:payload, :due), (:payload, :due) RETURNING "id";

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

-- write lock
DELETE FROM "lease_done_jobs" WHERE 0 = 1;

-- lease claim
UPDATE "lease_done_jobs" SET "locked_until" = :expiry WHERE "id" IN (SELECT "id" FROM "lease_done_jobs" WHERE ("locked_until" IS NULL OR "locked_until" <= :now) AND "processed_at" IS NULL ORDER BY "id" LIMIT :limit) RETURNING "id", 0, "payload", NULL;

-- lease extend
UPDATE "lease_done_jobs" SET "locked_until" = :expiry WHERE "id" = :id AND "locked_until" = :token;

-- ack
UPDATE "lease_done_jobs" SET "processed_at" = :processed, "locked_until" = NULL WHERE "id" = :id AND "locked_until" = :token;

-- retry
UPDATE "lease_done_jobs" SET "locked_until" = :due WHERE "id" = :id AND "locked_until" = :token;

-- drop
DELETE FROM "lease_done_jobs" WHERE "id" = :id AND "locked_until" = :token;

-- release
UPDATE "lease_done_jobs" SET "locked_until" = NULL WHERE "id" = :id AND "locked_until" = :token;

-- ==================== advisory_jobs (ADVISORY form)

-- insert
INSERT INTO "advisory_jobs" ("payload", "headers", "retry_after") VALUES (:payload, :headers, :due);

-- insert of 3 rows
INSERT INTO "advisory_jobs" ("payload", "headers", "retry_after") VALUES (:payload, :headers, :due), (:payload, :headers, :due), (:payload, :headers, :due) RETURNING "id";

-- depth
SELECT COUNT(*), COALESCE(SUM(CASE WHEN ("retry_after" IS NULL OR "retry_after" <= :now) THEN 1 ELSE 0 END), 0), NULL FROM "advisory_jobs";

-- dead letter
INSERT INTO "dead_jobs" ("id", "payload", "headers", "attempt", "error", "failed_at") SELECT "id", "payload", "headers", :attempt, :error, :failed FROM "advisory_jobs" WHERE "id" = :id;

-- dead letters counted
SELECT COUNT(*) FROM "dead_jobs";

-- cancel find
SELECT NULL, COALESCE(CAST("advisory_lock" AS TEXT), CAST("id" AS TEXT)) FROM "advisory_jobs" WHERE "id" = :id;

-- cancel delete
DELETE FROM "advisory_jobs" WHERE "id" = :id;

-- write lock
DELETE FROM "advisory_jobs" WHERE 0 = 1;

-- advisory candidates
SELECT "id", COALESCE(CAST("advisory_lock" AS TEXT), CAST("id" AS TEXT)) FROM "advisory_jobs" WHERE ("retry_after" IS NULL OR "retry_after" <= :now) ORDER BY "id" LIMIT :limit;

-- advisory take
SELECT "id", "attempt", "payload", "headers" FROM "advisory_jobs" WHERE "id" = :id AND ("retry_after" IS NULL OR "retry_after" <= :now);

-- advisory count
UPDATE "advisory_jobs" SET "attempt" = CASE WHEN "attempt" < 2147483647 THEN "attempt" + 1 ELSE "attempt" END WHERE "id" = :id;

-- ack
DELETE FROM "advisory_jobs" WHERE "id" = :id;

-- retry
UPDATE "advisory_jobs" SET "retry_after" = :due WHERE "id" = :id;

-- drop
DELETE FROM "advisory_jobs" WHERE "id" = :id;
