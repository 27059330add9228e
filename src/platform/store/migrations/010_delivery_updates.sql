-- Edit in place the message another delivery posts, once it is posted (its ts is not known before).
ALTER TABLE deliveries ADD COLUMN update_of bigint REFERENCES deliveries (id) ON DELETE SET NULL;
