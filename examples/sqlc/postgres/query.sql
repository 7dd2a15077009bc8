-- name: CreateAuthor :exec
INSERT INTO authors (id, name) VALUES ($1, $2);

-- name: GetAuthor :one
SELECT id, name FROM authors WHERE id = $1;

-- name: CreateBook :exec
INSERT INTO books (id, author_id, editor_id, series_id, title)
VALUES ($1, $2, $3, $4, $5);

-- name: GetBook :one
SELECT * FROM books WHERE id = $1;

-- name: ListBooksByAuthor :many
SELECT * FROM books WHERE author_id = $1 ORDER BY id;

-- name: ListBooksByIDs :many
SELECT * FROM books WHERE id = ANY(@ids::snowflake[]) ORDER BY id;

-- name: SetEditor :exec
UPDATE books SET editor_id = $2 WHERE id = $1;
