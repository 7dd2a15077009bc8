-- name: CreateAuthor :exec
INSERT INTO authors (id, name) VALUES (?, ?);

-- name: GetAuthor :one
SELECT id, name FROM authors WHERE id = ?;

-- name: CreateBook :exec
INSERT INTO books (id, author_id, editor_id, series_id, title)
VALUES (?, ?, ?, ?, ?);

-- name: GetBook :one
SELECT * FROM books WHERE id = ?;

-- name: ListBooksByAuthor :many
SELECT * FROM books WHERE author_id = ? ORDER BY id;

-- name: ListBooksByIDs :many
SELECT * FROM books WHERE id IN (sqlc.slice('ids')) ORDER BY id;

-- name: SetEditor :exec
UPDATE books SET editor_id = ? WHERE id = ?;
