// Leave no copy of erased text in the files of a server graphmem's launcher runs: zero the free
// string and array records, start a new transaction log, checkpoint (which prunes the older
// logs). The procedure exists only in that launcher (docker/Launcher.java).
CALL graphmem.purgeErased() YIELD zeroedRecords, logVersion, lowestLogVersion
RETURN zeroedRecords AS zeroed, logVersion AS log_version, lowestLogVersion AS lowest_log_version
