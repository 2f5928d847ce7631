-- A verification code belongs to the browser that asked for it (the digest of its code
-- flow cookie): another browser's code or wrong tries leave it alone. Codes sent before
-- have no flow and are never matched again; they live three minutes.
ALTER TABLE phone_codes ADD COLUMN flow TEXT;
