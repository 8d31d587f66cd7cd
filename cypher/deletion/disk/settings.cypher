// The server's own settings that decide how long erased text stays in its files: transaction
// log retention and rotation, checkpoints, the query log and its parameters. May be refused
// to a user who is not an administrator.
CALL dbms.listConfig() YIELD name, value
WHERE name STARTS WITH 'db.tx_log.' OR name STARTS WITH 'db.checkpoint'
   OR name IN ['db.logs.query.enabled', 'db.logs.query.parameter_logging_enabled',
               'server.backup.enabled']
RETURN name, value
ORDER BY name
