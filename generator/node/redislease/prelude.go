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
// ident is the master's replication ID (empty if INFO cannot be read),
// prev its previous one (master_replid2), listed the replicas it lists in
// any state, real those of them that announced a listening port (a
// replica does; redis-cli --rdb and --replica show port 0, and count for
// nothing), online those of real that are online. server() reads INFO
// server once, on demand. seenlisted(rl) is what field "rl" becomes: on a
// master never promoted since it took its ID afresh, at least real (a
// replica in its first sync counts, though it cannot acknowledge yet);
// on a promoted one, at least online (an old master that a Redis Cluster
// takeover makes a replica of it, syncing a moment before it dies, does
// not).
//
// promoted(from) reports whether the master was promoted from a master
// whose replication ID was from: its previous ID is from, and this process
// streamed from a master (its backlog holds bytes from before the switch
// to the new ID, or INFO stats counts replication input since it
// started). A master restarted from its RDB file also keeps the file's ID
// as master_replid2, but its backlog starts at second_repl_offset and it
// has had no replication input: it is not taken for a promoted replica
// (issue 49, row 12).
//
// had reports that a replica, or a client syncing as one, attached to
// this master since it took its ID afresh: Redis creates the backlog when
// the first one attaches, with a new ID and master_replid2 cleared (issue
// 49, rows 13 and 15).
// lossless(stored) reports whether the hash, written under ID stored, was
// written by this very process (field "run" is its run_id) and the ID
// changed only because a first replica attached: nothing was lost.
//
// replicas(seen, count) is how many replicas a lease that saw
// replication ID seen with count replicas waits for now: the replicas
// online if this master was promoted from seen (as promoted tells, or as
// the hash's field "from" records of the claim that saw the promotion),
// otherwise the larger of count and the replicas online.
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
local online, listed, real = 0, 0, 0
if info then
  for line in string.gmatch(info, 'slave%d+:ip=[^\r\n]*') do
    listed = listed + 1
    if (tonumber(string.match(line, ',port=(%d+)') or '0') or 0) ~= 0 then
      real = real + 1
      if string.find(line, 'state=online', 1, true) then online = online + 1 end
    end
  end
end
local backlog = info and string.match(info, 'repl_backlog_active:(%d+)') == '1'
local first = info and tonumber(string.match(info, 'repl_backlog_first_byte_offset:(%-?%d+)') or '')
local second = info and tonumber(string.match(info, 'second_repl_offset:(%-?%d+)') or '')
local zero2 = prev == '' or string.match(prev, '^0+$') ~= nil
local had = ident ~= '' and backlog and zero2
local function seenlisted(rl)
  if zero2 then return math.max(rl, real) end
  return math.max(rl, online)
end
local sinfo = nil
local function server()
  if sinfo == nil then
    local s = redis.pcall('INFO', 'server')
    if type(s) == 'string' then sinfo = s else sinfo = '' end
  end
  return sinfo
end
local function streamed()
  if backlog and first ~= nil and second ~= nil and first < second then return true end
  local st = redis.pcall('INFO', 'stats')
  local n = type(st) == 'string' and tonumber(string.match(st, 'total_net_repl_input_bytes:(%d+)') or '') or 0
  return n > 0
end
local function promoted(from)
  return from ~= '' and ident ~= '' and from ~= ident and prev == from and streamed()
end
local function lossless(stored)
  if not had or stored == ident or #stored ~= 40 or not string.match(stored, '^%x+$') then return false end
  local run = redis.call('HGET', H, 'run')
  return run ~= false and run == string.match(server(), 'run_id:(%x+)')
end
local function replicas(seen, count)
  if promoted(seen) then return online end
  if seen ~= '' and seen == redis.call('HGET', H, 'from') and redis.call('HGET', H, 'ident') == ident then return online end
  return math.max(count, online)
end
`
