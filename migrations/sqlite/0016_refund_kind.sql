-- A refund is a transaction of its own kind: `kind` accepts 'refund'.
--
-- SQLite cannot alter a CHECK constraint, and rebuilding `transactions` (the table four others
-- reference) would copy every payment. Widening the list of allowed values is one of the
-- changes SQLite documents as safe to make by editing the stored schema (lang_altertable.html,
-- "Making Other Kinds Of Table Schema Changes"): every stored row satisfies the wider CHECK.
-- The edit is exact (the text written by 0002) and the migration's transaction holds it; RESET
-- then reloads this connection's schema, whose parsed form a later ALTER TABLE in the same run
-- would otherwise use with the old text's offsets.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, 'CHECK (kind IN (''collecte'', ''transfer''))',
                          'CHECK (kind IN (''collecte'', ''transfer'', ''refund''))')
 WHERE type = 'table' AND name = 'transactions';
PRAGMA writable_schema = RESET;
