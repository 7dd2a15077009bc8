package redislease

// prelude starts the claim and renewal scripts (KEYS[1] the hash): the
// checked reading of numeric fields and what the master tells of its
// replication.
//
// num reads a field that concerns the whole hash and fails the script with
// an error naming it if it is not an integer of at most 2^53 in magnitude
// (every stored time then fits int64 nanoseconds); own reads a field of one
// node and returns nil if it is corrupt, so that the caller can heal it.
//
// ident is the master's replication ID (empty if INFO cannot be read), online
// its online replicas, prev its previous replication ID (master_replid2).
// replicas(seen, count) is how many replicas a lease that saw replication
// ID seen with count replicas waits for now: the replicas the master has
// now if it was promoted from seen (its previous ID is seen), otherwise
// the larger of count and the replicas online.
const prelude = `
local H = KEYS[1]
local LIMIT = 9007199254740992
local function parse(s)
  local x = tonumber(s)
  if not x or x ~= x or x ~= math.floor(x) or x > LIMIT or x < -LIMIT then return nil end
  return x
end
local function num(f, d)
  local s = redis.call('HGET', H, f)
  if not s then return d end
  local x = parse(s)
  if not x then return error({err = 'IDKIT_CORRUPT field ' .. f .. ' holds ' .. string.format('%q', string.sub(s, 1, 40)) .. ', not an integer within 2^53'}) end
  return x
end
local function own(f, d)
  local s = redis.call('HGET', H, f)
  if not s then return d end
  return parse(s)
end
local info = redis.pcall('INFO', 'replication')
if type(info) ~= 'string' then info = nil end
local ident = info and string.match(info, 'master_replid:(%w+)') or ''
local prev = info and string.match(info, 'master_replid2:(%w+)') or ''
local online = 0
if info then for _ in string.gmatch(info, 'state=online') do online = online + 1 end end
local function promoted(from)
  return from ~= '' and ident ~= '' and from ~= ident and prev == from
end
local function replicas(seen, count)
  if promoted(seen) then return online end
  return math.max(count, online)
end
`
