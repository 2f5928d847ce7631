-- When the user was shown a warning and confirmed it; NULL: not yet, so it is shown at
-- their next visit. Warnings given before this column existed count as seen.
ALTER TABLE sanctions ADD COLUMN seen_at BIGINT;
UPDATE sanctions SET seen_at = created_at WHERE kind = 'warn';
