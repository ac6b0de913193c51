-- Every statement the mysql dialect writes for the reference tables of DialectStatementFilesTest.
-- Written by that test, which fails on a difference; write it again with -Dinbox.statements.write=true.

-- ==================== lease_jobs (LEASE form)

-- insert
INSERT INTO `lease_jobs` (`payload`, `headers`, `group_key`, `priority`, `published_at`, `unique_key`, `retry_after`) VALUES (:payload, :headers, :group, :priority, :published, :key, :due);

-- unique insert
INSERT INTO `lease_jobs` (`payload`, `headers`, `group_key`, `priority`, `published_at`, `unique_key`, `retry_after`) VALUES (:payload, :headers, :group, :priority, :published, :key, :due);

-- insert of 3 rows
INSERT INTO `lease_jobs` (`payload`, `headers`, `group_key`, `priority`, `published_at`, `unique_key`, `retry_after`) VALUES (:payload, :headers, :group, :priority, :published, :key, :due), (:payload, :headers, :group, :priority, :published, :key, :due), (:payload, :headers, :group, :priority, :published, :key, :due) /*M! RETURNING `id` */;

-- depth
SELECT COUNT(*), COALESCE(SUM(CASE WHEN (`locked_until` IS NULL OR `locked_until` <= :now) AND (`retry_after` IS NULL OR `retry_after` <= :now) AND (`group_key` IS NULL OR `id` IN (SELECT MIN(`id`) FROM `lease_jobs` WHERE `group_key` IS NOT NULL GROUP BY `group_key`)) THEN 1 ELSE 0 END), 0), MIN(CASE WHEN (`locked_until` IS NULL OR `locked_until` <= :now) AND (`retry_after` IS NULL OR `retry_after` <= :now) AND (`group_key` IS NULL OR `id` IN (SELECT MIN(`id`) FROM `lease_jobs` WHERE `group_key` IS NOT NULL GROUP BY `group_key`)) THEN `published_at` END) FROM `lease_jobs`;

-- dead letter
INSERT INTO `dead_jobs` (`id`, `payload`, `headers`, `attempt`, `error`, `failed_at`, `last_error`) SELECT `id`, `payload`, `headers`, :attempt, :error, :failed, COALESCE(:lastError, `last_error`) FROM `lease_jobs` WHERE `id` = :id AND `locked_until` = :token;

-- dead letters counted
SELECT COUNT(*) FROM `dead_jobs`;

-- cancel find
SELECT NULL, NULL FROM `lease_jobs` WHERE `id` = :id;

-- cancel delete
DELETE FROM `lease_jobs` WHERE `id` = :id AND (`locked_until` IS NULL OR `locked_until` <= :now);

-- lease claim
SELECT `id`, `attempt`, `payload`, `headers`, `priority` FROM `lease_jobs` WHERE (`locked_until` IS NULL OR `locked_until` <= :now) AND (`retry_after` IS NULL OR `retry_after` <= :now) AND (`group_key` IS NULL OR `id` IN (SELECT MIN(`id`) FROM `lease_jobs` WHERE `group_key` IS NOT NULL GROUP BY `group_key`)) ORDER BY `priority` DESC, `id` LIMIT :limit FOR UPDATE SKIP LOCKED;

-- lease stamp
UPDATE `lease_jobs` SET `locked_until` = :expiry, `attempt` = CASE WHEN `attempt` < 2147483647 THEN `attempt` + 1 ELSE `attempt` END WHERE `id` = :id;

-- lease stamp of a list of rows
UPDATE JSON_TABLE(:rows, '$[*]' COLUMNS (inbox_row_id BIGINT PATH '$[0]')) AS inbox_rows STRAIGHT_JOIN `lease_jobs` ON `lease_jobs`.`id` = inbox_rows.inbox_row_id SET `locked_until` = :expiry, `attempt` = CASE WHEN `attempt` < 2147483647 THEN `attempt` + 1 ELSE `attempt` END;

-- lease extend
UPDATE `lease_jobs` SET `locked_until` = :expiry WHERE `id` = :id AND `locked_until` = :token;

-- ack
DELETE FROM `lease_jobs` WHERE `id` = :id AND `locked_until` = :token;

-- acks of a list of rows
DELETE `lease_jobs` FROM JSON_TABLE(:rows, '$[*]' COLUMNS (inbox_row_id BIGINT PATH '$[0]', inbox_row_token DATETIME(6) PATH '$[1]')) AS inbox_rows STRAIGHT_JOIN `lease_jobs` ON `lease_jobs`.`id` = inbox_rows.inbox_row_id AND `lease_jobs`.`locked_until` = inbox_rows.inbox_row_token;

-- retry
UPDATE `lease_jobs` SET `locked_until` = NULL, `retry_after` = :due, `last_error` = COALESCE(:lastError, `last_error`) WHERE `id` = :id AND `locked_until` = :token;

-- drop
DELETE FROM `lease_jobs` WHERE `id` = :id AND `locked_until` = :token;

-- release
UPDATE `lease_jobs` SET `locked_until` = NULL, `attempt` = `attempt` - 1 WHERE `id` = :id AND `locked_until` = :token;

-- ==================== lease_done_jobs (LEASE form)

-- insert
INSERT INTO `lease_done_jobs` (`payload`, `locked_until`) VALUES (:payload, :due);

-- insert of 3 rows
INSERT INTO `lease_done_jobs` (`payload`, `locked_until`) VALUES (:payload, :due), (:payload, :due), (:payload, :due) /*M! RETURNING `id` */;

-- depth
SELECT COUNT(*), COALESCE(SUM(CASE WHEN (`locked_until` IS NULL OR `locked_until` <= :now) AND `processed_at` IS NULL THEN 1 ELSE 0 END), 0), NULL FROM `lease_done_jobs` WHERE `processed_at` IS NULL;

-- dead letter
INSERT INTO `dead_jobs` (`id`, `payload`, `attempt`, `error`, `failed_at`) SELECT `id`, `payload`, :attempt, :error, :failed FROM `lease_done_jobs` WHERE `id` = :id AND `locked_until` = :token;

-- dead letters counted
SELECT COUNT(*) FROM `dead_jobs`;

-- cancel find
SELECT `processed_at`, NULL FROM `lease_done_jobs` WHERE `id` = :id;

-- cancel delete
DELETE FROM `lease_done_jobs` WHERE `id` = :id AND (`locked_until` IS NULL OR `locked_until` <= :now) AND `processed_at` IS NULL;

-- lease claim
SELECT `id`, 0, `payload`, NULL FROM `lease_done_jobs` WHERE (`locked_until` IS NULL OR `locked_until` <= :now) AND `processed_at` IS NULL ORDER BY `id` LIMIT :limit FOR UPDATE SKIP LOCKED;

-- lease stamp
UPDATE `lease_done_jobs` SET `locked_until` = :expiry WHERE `id` = :id;

-- lease stamp of a list of rows
UPDATE JSON_TABLE(:rows, '$[*]' COLUMNS (inbox_row_id BIGINT PATH '$[0]')) AS inbox_rows STRAIGHT_JOIN `lease_done_jobs` ON `lease_done_jobs`.`id` = inbox_rows.inbox_row_id SET `locked_until` = :expiry;

-- lease extend
UPDATE `lease_done_jobs` SET `locked_until` = :expiry WHERE `id` = :id AND `locked_until` = :token;

-- ack
UPDATE `lease_done_jobs` SET `processed_at` = :processed, `locked_until` = NULL WHERE `id` = :id AND `locked_until` = :token;

-- acks of a list of rows
UPDATE JSON_TABLE(:rows, '$[*]' COLUMNS (inbox_row_id BIGINT PATH '$[0]', inbox_row_token DATETIME(6) PATH '$[1]')) AS inbox_rows STRAIGHT_JOIN `lease_done_jobs` ON `lease_done_jobs`.`id` = inbox_rows.inbox_row_id AND `lease_done_jobs`.`locked_until` = inbox_rows.inbox_row_token SET `processed_at` = :processed, `locked_until` = NULL;

-- retry
UPDATE `lease_done_jobs` SET `locked_until` = :due WHERE `id` = :id AND `locked_until` = :token;

-- drop
DELETE FROM `lease_done_jobs` WHERE `id` = :id AND `locked_until` = :token;

-- release
UPDATE `lease_done_jobs` SET `locked_until` = NULL WHERE `id` = :id AND `locked_until` = :token;

-- ==================== row_lock_jobs (ROW_LOCK form)

-- insert
INSERT INTO `row_lock_jobs` (`payload`, `headers`, `group_key`, `priority`, `retry_after`) VALUES (:payload, :headers, :group, :priority, :due);

-- insert of 3 rows
INSERT INTO `row_lock_jobs` (`payload`, `headers`, `group_key`, `priority`, `retry_after`) VALUES (:payload, :headers, :group, :priority, :due), (:payload, :headers, :group, :priority, :due), (:payload, :headers, :group, :priority, :due) /*M! RETURNING `id` */;

-- depth
SELECT COUNT(*), COALESCE(SUM(CASE WHEN (`retry_after` IS NULL OR `retry_after` <= :now) AND (`group_key` IS NULL OR `id` IN (SELECT MIN(`id`) FROM `row_lock_jobs` WHERE `group_key` IS NOT NULL GROUP BY `group_key`)) THEN 1 ELSE 0 END), 0), NULL FROM `row_lock_jobs`;

-- dead letter
INSERT INTO `dead_jobs` (`id`, `payload`, `headers`, `attempt`, `error`, `failed_at`) SELECT `id`, `payload`, `headers`, :attempt, :error, :failed FROM `row_lock_jobs` WHERE `id` = :id;

-- dead letters counted
SELECT COUNT(*) FROM `dead_jobs`;

-- cancel find
SELECT NULL, NULL FROM `row_lock_jobs` WHERE `id` = :id;

-- cancel lock
SELECT `id` FROM `row_lock_jobs` WHERE `id` = :id FOR UPDATE SKIP LOCKED;

-- cancel delete
DELETE FROM `row_lock_jobs` WHERE `id` = :id;

-- row lock claim
SELECT `id`, `attempt`, `payload`, `headers`, `priority` FROM `row_lock_jobs` WHERE (`retry_after` IS NULL OR `retry_after` <= :now) AND (`group_key` IS NULL OR `id` IN (SELECT MIN(`id`) FROM `row_lock_jobs` WHERE `group_key` IS NOT NULL GROUP BY `group_key`)) ORDER BY `priority` DESC, `id` LIMIT :limit FOR UPDATE SKIP LOCKED;

-- row lock stamp
UPDATE `row_lock_jobs` SET `attempt` = CASE WHEN `attempt` < 2147483647 THEN `attempt` + 1 ELSE `attempt` END WHERE `id` = :id;

-- row lock stamp of a list of rows
UPDATE JSON_TABLE(:rows, '$[*]' COLUMNS (inbox_row_id BIGINT PATH '$[0]')) AS inbox_rows STRAIGHT_JOIN `row_lock_jobs` ON `row_lock_jobs`.`id` = inbox_rows.inbox_row_id SET `attempt` = CASE WHEN `attempt` < 2147483647 THEN `attempt` + 1 ELSE `attempt` END;

-- ack
DELETE FROM `row_lock_jobs` WHERE `id` = :id;

-- acks of a list of rows
DELETE `row_lock_jobs` FROM JSON_TABLE(:rows, '$[*]' COLUMNS (inbox_row_id BIGINT PATH '$[0]')) AS inbox_rows STRAIGHT_JOIN `row_lock_jobs` ON `row_lock_jobs`.`id` = inbox_rows.inbox_row_id;

-- retry
UPDATE `row_lock_jobs` SET `retry_after` = :due WHERE `id` = :id;

-- drop
DELETE FROM `row_lock_jobs` WHERE `id` = :id;

-- row lock relock
SELECT `id` FROM `row_lock_jobs` WHERE `id` = :id AND `attempt` = :attempt FOR UPDATE SKIP LOCKED;

-- row lock count
UPDATE `row_lock_jobs` SET `attempt` = CASE WHEN `attempt` < 2147483647 THEN `attempt` + 1 ELSE `attempt` END WHERE `id` = :id;

-- ==================== advisory_jobs (ADVISORY form)

-- insert
INSERT INTO `advisory_jobs` (`payload`, `headers`, `retry_after`) VALUES (:payload, :headers, :due);

-- insert of 3 rows
INSERT INTO `advisory_jobs` (`payload`, `headers`, `retry_after`) VALUES (:payload, :headers, :due), (:payload, :headers, :due), (:payload, :headers, :due) /*M! RETURNING `id` */;

-- depth
SELECT COUNT(*), COALESCE(SUM(CASE WHEN (`retry_after` IS NULL OR `retry_after` <= :now) THEN 1 ELSE 0 END), 0), NULL FROM `advisory_jobs`;

-- dead letter
INSERT INTO `dead_jobs` (`id`, `payload`, `headers`, `attempt`, `error`, `failed_at`) SELECT `id`, `payload`, `headers`, :attempt, :error, :failed FROM `advisory_jobs` WHERE `id` = :id;

-- dead letters counted
SELECT COUNT(*) FROM `dead_jobs`;

-- cancel find
SELECT NULL, COALESCE(CAST(`advisory_lock` AS CHAR), CAST(`id` AS CHAR)) FROM `advisory_jobs` WHERE `id` = :id;

-- cancel lock
SELECT c.k FROM (SELECT COALESCE(CAST(`advisory_lock` AS CHAR), CAST(`id` AS CHAR)) AS k FROM `advisory_jobs` WHERE `id` = :id LIMIT 1) c WHERE GET_LOCK(SHA1(CONCAT(:prefix, c.k)), 0) = 1;

-- cancel delete
DELETE FROM `advisory_jobs` WHERE `id` = :id;

-- cancel unlock
SELECT RELEASE_LOCK(SHA1(:key));

-- advisory candidates
SELECT `id`, COALESCE(CAST(`advisory_lock` AS CHAR), CAST(`id` AS CHAR)) FROM `advisory_jobs` WHERE (`retry_after` IS NULL OR `retry_after` <= :now) ORDER BY `id` LIMIT :limit;

-- advisory lock candidates
SELECT c.id, c.k FROM (SELECT `id` AS id, COALESCE(CAST(`advisory_lock` AS CHAR), CAST(`id` AS CHAR)) AS k FROM `advisory_jobs` WHERE (`retry_after` IS NULL OR `retry_after` <= :now) ORDER BY `id` LIMIT :scan) c WHERE GET_LOCK(SHA1(CONCAT(:prefix, c.k)), 0) = 1 LIMIT :limit;

-- advisory take
SELECT `id`, `attempt`, `payload`, `headers` FROM `advisory_jobs` WHERE `id` = :id AND (`retry_after` IS NULL OR `retry_after` <= :now);

-- advisory take of a list of rows
SELECT `id`, `attempt`, `payload`, `headers` FROM JSON_TABLE(:rows, '$[*]' COLUMNS (inbox_row_id BIGINT PATH '$[0]')) AS inbox_rows STRAIGHT_JOIN `advisory_jobs` ON `advisory_jobs`.`id` = inbox_rows.inbox_row_id WHERE (`retry_after` IS NULL OR `retry_after` <= :now);

-- advisory count
UPDATE `advisory_jobs` SET `attempt` = CASE WHEN `attempt` < 2147483647 THEN `attempt` + 1 ELSE `attempt` END WHERE `id` = :id;

-- advisory count of a list of rows
UPDATE JSON_TABLE(:rows, '$[*]' COLUMNS (inbox_row_id BIGINT PATH '$[0]')) AS inbox_rows STRAIGHT_JOIN `advisory_jobs` ON `advisory_jobs`.`id` = inbox_rows.inbox_row_id SET `attempt` = CASE WHEN `attempt` < 2147483647 THEN `attempt` + 1 ELSE `attempt` END;

-- advisory unlock
SELECT RELEASE_LOCK(SHA1(:key));

-- advisory unlock all
SELECT RELEASE_ALL_LOCKS();

-- ack
DELETE FROM `advisory_jobs` WHERE `id` = :id;

-- acks of a list of rows
DELETE `advisory_jobs` FROM JSON_TABLE(:rows, '$[*]' COLUMNS (inbox_row_id BIGINT PATH '$[0]')) AS inbox_rows STRAIGHT_JOIN `advisory_jobs` ON `advisory_jobs`.`id` = inbox_rows.inbox_row_id;

-- retry
UPDATE `advisory_jobs` SET `retry_after` = :due WHERE `id` = :id;

-- drop
DELETE FROM `advisory_jobs` WHERE `id` = :id;
