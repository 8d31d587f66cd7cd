// Runs Neo4j Community embedded with Bolt on HOST:PORT, for graphmem without Docker.
//
// Build the classpath once:   cd docker && mvn -q -B package        (fills docker/lib)
// Run (Java 17+ JDK; source-file mode compiles this file in memory):
//   java -Xms512m -Xmx1g \
//     --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED \
//     --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED \
//     --enable-native-access=ALL-UNNAMED -Dio.netty.tryReflectionSetAccessible=true \
//     -Djdk.nio.maxCachedBufferSize=1024 -Dlog4j2.disable.jmx=true \
//     -cp 'lib/*' Launcher.java --home .neo4j [--host 127.0.0.1] [--port 7687] \
//     [--pagecache-mb 256] [--password-file FILE] [--lease-dir DIR] [--detached]
//
// With --password-file, authentication is on: user `neo4j`, password = the file's first line
// (without its line ending). On a new store the password is set before the server starts, the
// way `neo4j-admin dbms set-initial-password` does it, so Bolt never accepts the default
// neo4j/neo4j; on an existing store it is set (ALTER USER) right after start, so changing the
// file changes the password. Without --password-file auth is off. HTTP is off. Once `RETURN 1` succeeds the
// launcher prints exactly one stdout line, `NEO4J_READY bolt://HOST:PORT`. Store files live in
// HOME/data, the internal log in HOME/logs/debug.log.
//
// Attached mode (default): stops when stdin reaches EOF, so a parent process that owns the
// server's stdin pipe can never leak it, even if the parent crashes. --detached: ignores stdin
// and runs until SIGTERM/SIGINT. Either way a shutdown hook stops the database cleanly.
//
// --lease-dir DIR (a server graphmem started for its clients, not kept by `graphmem db start`):
// once ready, a watch thread checks every second, holding DIR/../lock as graphmem does, that
// DIR/../state.json still records this process and either as kept or with a live lease in DIR
// (the rule of graphmem/db/leases.py). When not, it exits as SIGTERM would, still holding the
// lock until the process ends, so no client can take a lease on a server that is stopping.
// Exit codes: 0 after a clean stop, 1 when startup fails, 2 for bad arguments, 3 when the Bolt
// port is already taken (callers that picked a free port may retry with another one).

import java.net.BindException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.ArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.neo4j.cli.ExecutionContext;
import org.neo4j.commandline.admin.security.SetInitialPasswordCommand;
import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.PortBindException;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.internal.id.IdController;
import org.neo4j.internal.id.IdGenerator;
import org.neo4j.internal.recordstorage.RecordStorageEngine;
import org.neo4j.io.pagecache.PageCursor;
import org.neo4j.io.pagecache.context.CursorContext;
import org.neo4j.kernel.api.procedure.GlobalProcedures;
import org.neo4j.kernel.impl.store.CommonAbstractStore;
import org.neo4j.kernel.impl.store.NeoStores;
import org.neo4j.kernel.impl.transaction.log.checkpoint.CheckPointer;
import org.neo4j.kernel.impl.transaction.log.checkpoint.SimpleTriggerInfo;
import org.neo4j.kernel.impl.transaction.log.files.LogFiles;
import org.neo4j.kernel.impl.transaction.log.rotation.LogRotateEvent;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.collection.ResourceRawIterator;
import org.neo4j.internal.kernel.api.exceptions.ProcedureException;
import org.neo4j.internal.kernel.api.procs.Neo4jTypes;
import org.neo4j.internal.kernel.api.procs.ProcedureSignature;
import org.neo4j.internal.kernel.api.procs.QualifiedName;
import org.neo4j.kernel.api.ResourceMonitor;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.kernel.api.procedure.CallableProcedure;
import org.neo4j.procedure.Mode;
import org.neo4j.values.AnyValue;
import org.neo4j.values.storable.Values;
import org.neo4j.io.ByteUnit;
import org.neo4j.io.fs.DefaultFileSystemAbstraction;
import picocli.CommandLine;

public class Launcher {
  private static volatile DatabaseManagementService dbms;

  public static void main(String[] args) {
    Path home;
    String host;
    int port;
    long pagecacheMb;
    String password;
    Path leaseDir;
    boolean detached = List.of(args).contains("--detached");
    try {
      home = Path.of(opt(args, "--home", "neo4j-home")).toAbsolutePath();
      host = opt(args, "--host", "127.0.0.1");
      port = Integer.parseInt(opt(args, "--port", "7687"));
      pagecacheMb = Long.parseLong(opt(args, "--pagecache-mb", "256"));
      String passwordFile = opt(args, "--password-file", null);
      password = passwordFile == null ? null : readPassword(Path.of(passwordFile));
      String leases = opt(args, "--lease-dir", null);
      leaseDir = leases == null ? null : Path.of(leases).toAbsolutePath();
    } catch (RuntimeException | java.io.IOException e) {
      System.err.println("Launcher: bad arguments: " + e);
      System.exit(2);
      return;
    }

    Runtime.getRuntime().addShutdownHook(new Thread(Launcher::stop, "neo4j-stop"));
    if (!detached) {
      // Watch stdin from the start, so a parent that dies during startup still stops us.
      Thread watcher = new Thread(Launcher::exitOnStdinEof, "stdin-eof-watcher");
      watcher.setDaemon(true);
      watcher.start();
    }

    try {
      Files.createDirectories(home);
      if (password != null && !Files.exists(home.resolve("data/databases/system"))) {
        setInitialPassword(home, password);
      }
      SocketAddress bolt = new SocketAddress(host, port);
      dbms = new DatabaseManagementServiceBuilder(home)
          .setConfig(BoltConnector.enabled, true)
          .setConfig(BoltConnector.listen_address, bolt)
          .setConfig(BoltConnector.advertised_address, bolt)
          .setConfig(HttpConnector.enabled, false)
          .setConfig(HttpsConnector.enabled, false)
          .setConfig(GraphDatabaseSettings.auth_enabled, password != null)
          .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pagecacheMb))
          // Erased text must not outlive an erasure in old transaction logs: keep none beyond
          // what recovery needs; graphmem.purgeErased() rotates and checkpoints to prune them.
          .setConfig(GraphDatabaseSettings.keep_logical_logs, "false")
          // Bolt's two netty event loop groups each idle 5 s on shutdown by default (10 s per
          // stop); nothing is in flight once connections are closed, so don't wait.
          .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
          .build(); // starts the system database and "neo4j"
      if (password != null) {
        alignPassword(password);
      }
      ((GraphDatabaseAPI) dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME))
          .getDependencyResolver().resolveDependency(GlobalProcedures.class)
          .register(new Purge());
      dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME)
          .executeTransactionally("RETURN 1");
    } catch (Throwable e) {
      e.printStackTrace();
      Throwable root = e;
      boolean portTaken = false;
      for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
        portTaken |= t instanceof PortBindException || t instanceof BindException;
        root = t;
      }
      // Last line of stderr, so a caller showing the output's tail shows it.
      System.err.println("Launcher: Neo4j failed to start: " + root
          + " (details in " + home.resolve("logs/debug.log") + ")");
      System.err.flush();
      System.exit(portTaken ? 3 : 1);
      return;
    }

    System.out.println("NEO4J_READY bolt://" + host + ":" + port);
    System.out.flush();
    if (leaseDir != null) {
      Thread leaseWatch = new Thread(() -> watchLeases(leaseDir), "lease-watch");
      leaseWatch.setDaemon(true);
      leaseWatch.start();
    }
    try {
      Thread.currentThread().join(); // until the stdin watcher or a signal calls System.exit
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The file's first line without its line ending (graphmem.db.credentials reads it alike). */
  private static String readPassword(Path file) throws java.io.IOException {
    String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    int nl = text.indexOf('\n');
    String line = nl < 0 ? text : text.substring(0, nl);
    if (line.endsWith("\r")) {
      line = line.substring(0, line.length() - 1);
    }
    if (line.isEmpty()) {
      throw new IllegalArgumentException("password file " + file + " is empty");
    }
    return line;
  }

  /** What `neo4j-admin dbms set-initial-password` does: write data/dbms/auth.ini, which the
   *  first start turns into the neo4j user (no password change required). */
  private static void setInitialPassword(Path home, String password) {
    ExecutionContext ctx = new ExecutionContext(home, home.resolve("conf"), System.err,
        System.err, new DefaultFileSystemAbstraction());
    // The password is data, never an option or an @argument-file: "--" ends the options (a
    // generated URL-safe password may begin with '-') and @-file expansion is off.
    CommandLine command = new CommandLine(new SetInitialPasswordCommand(ctx));
    command.setExpandAtFiles(false);
    int code = command.execute("--", password);
    if (code != 0) {
      throw new IllegalStateException("setting the initial password failed (exit " + code + ")");
    }
  }

  /** Make the neo4j user's password the file's, on a store that already existed. */
  private static void alignPassword(String password) {
    try {
      dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME).executeTransactionally(
          "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
          Map.of("password", password));
    } catch (QueryExecutionException e) {
      String message = String.valueOf(e.getMessage());
      if (!message.contains("Old password and new password cannot be the same")) {
        throw e;
      }
    }
  }

  private static void exitOnStdinEof() {
    try {
      while (System.in.read() != -1) {
        // discard input; only EOF matters
      }
    } catch (Exception e) {
      // a broken pipe counts as EOF
    }
    System.exit(0); // runs the shutdown hook
  }

  private static final long LEASE_POLL_MS = 1000;
  /** As long as graphmem's own stop waits for a clean shutdown before SIGKILL. */
  private static final long STOP_TIMEOUT_MS = 60_000;
  private static final Pattern STATE_PID = Pattern.compile("\"pid\"\\s*:\\s*(\\d+)");
  private static final Pattern STATE_KEPT = Pattern.compile("\"kept\"\\s*:\\s*(true|false)");

  /** The --lease-dir watch (see the header): returns only by ending the process. */
  private static void watchLeases(Path leases) {
    Path serverDir = leases.getParent();
    while (true) {
      try {
        Thread.sleep(LEASE_POLL_MS);
      } catch (InterruptedException e) {
        return;
      }
      if (!Files.isDirectory(serverDir)) {
        exitUnwanted("its data directory is gone"); // nothing can find this server any more
      }
      try (FileChannel channel = FileChannel.open(serverDir.resolve("lock"),
               StandardOpenOption.CREATE, StandardOpenOption.WRITE);
           FileLock lock = channel.lock()) { // waits while a client starts, leases or releases
        String unwanted = unwantedBecause(serverDir.resolve("state.json"), leases);
        if (unwanted != null) {
          exitUnwanted(unwanted); // the lock is held until the process ends
        }
      } catch (java.io.IOException | RuntimeException e) {
        System.err.println("Launcher: lease watch: " + e); // try again at the next poll
      }
    }
  }

  /** Why this server is no longer wanted, or null while it is: state.json records this
   *  process, and as kept (a record without "kept" is kept, as graphmem reads it) or with a
   *  live lease. An unreadable state file counts as wanted: graphmem removes it, and the next
   *  poll finds none. */
  private static String unwantedBecause(Path stateFile, Path leases) throws java.io.IOException {
    String state;
    try {
      state = Files.readString(stateFile, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return "no server is recorded";
    }
    Matcher pid = STATE_PID.matcher(state);
    if (!pid.find() || !pid.group(1).equals(Long.toString(ProcessHandle.current().pid()))) {
      return "another server is recorded";
    }
    Matcher kept = STATE_KEPT.matcher(state);
    if (!kept.find() || kept.group(1).equals("true")) {
      return null;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(leases)) {
      for (Path lease : files) {
        if (leaseLive(lease)) {
          return null;
        }
      }
    } catch (NoSuchFileException e) {
      // no lease folder: no lease
    }
    return "no live process holds a lease";
  }

  /** The rule of graphmem/db/leases.py: a file "PID-HEX" holding the start time (22nd field of
   *  /proc/PID/stat, counted after the last ')') of the process PID, which still runs. */
  private static boolean leaseLive(Path lease) {
    String name = lease.getFileName().toString();
    String head = name.split("-", 2)[0];
    if (!head.matches("[0-9]+")) {
      return false;
    }
    try {
      long pid = Long.parseLong(head);
      String started = Files.readString(lease, StandardCharsets.US_ASCII).strip();
      return pid > 0 && !started.isEmpty() && started.equals(processStart(pid));
    } catch (java.io.IOException | RuntimeException e) {
      return false; // unreadable, or a pid too large for any process
    }
  }

  /** When process {@code pid} started (clock ticks since boot), or null when it is gone. */
  private static String processStart(long pid) {
    String stat;
    try {
      stat = new String(Files.readAllBytes(Path.of("/proc/" + pid + "/stat")),
          StandardCharsets.ISO_8859_1);
    } catch (java.io.IOException e) {
      return null;
    }
    String[] fields = stat.substring(stat.lastIndexOf(')') + 1).strip().split("\\s+");
    return fields.length > 19 ? fields[19] : null;
  }

  /** Stop as SIGTERM does (the shutdown hook), and halt as graphmem's SIGKILL would if the
   *  clean stop takes longer than {@link #STOP_TIMEOUT_MS}. */
  private static void exitUnwanted(String why) {
    System.err.println("Launcher: stopping: started for graphmem's clients, and " + why);
    System.err.flush();
    Thread halt = new Thread(() -> {
      try {
        Thread.sleep(STOP_TIMEOUT_MS);
      } catch (InterruptedException e) {
        return;
      }
      Runtime.getRuntime().halt(1);
    }, "stop-timeout");
    halt.setDaemon(true);
    halt.start();
    System.exit(0);
  }

  private static void stop() {
    DatabaseManagementService d = dbms;
    if (d != null) {
      dbms = null;
      try {
        d.shutdown();
      } catch (Throwable e) {
        System.err.println("Launcher: shutdown failed: " + e);
      }
    }
  }

  private static String opt(String[] a, String key, String dflt) {
    for (int i = 0; i + 1 < a.length; i++) {
      if (a[i].equals(key)) {
        return a[i + 1];
      }
    }
    return dflt;
  }

  /** {@code CALL graphmem.purgeErased()}: leave no copy of erased text in this database's files.
   *
   *  Neo4j frees a deleted or overwritten string or array value's dynamic records without
   *  clearing them, and its transaction logs hold every value written. This overwrites with
   *  zeros every free record of the string and array stores (each taken from the id generator
   *  first, so no transaction can be given it meanwhile, then handed back) and the tail of
   *  every record in use past its data (a freed record reused by a shorter value keeps the
   *  end of the old one there), starts a new
   *  transaction log and forces a checkpoint, which flushes the zeroed pages and, with
   *  {@code db.tx_log.rotation.retention_policy=false}, deletes the older logs. */
  static final class Purge extends CallableProcedure.BasicProcedure {
    Purge() {
      super(ProcedureSignature.procedureSignature(new QualifiedName("graphmem", "purgeErased"))
          .mode(Mode.DBMS)
          .out("zeroedRecords", Neo4jTypes.NTInteger)
          .out("logVersion", Neo4jTypes.NTInteger)
          .out("lowestLogVersion", Neo4jTypes.NTInteger)
          .description("Zero free string/array records and the tails of those in use, rotate the "
              + "transaction log, checkpoint.")
          .build());
    }

    @Override
    public ResourceRawIterator<AnyValue[], ProcedureException> apply(
        org.neo4j.kernel.api.procedure.Context ctx, AnyValue[] input, ResourceMonitor monitor)
        throws ProcedureException {
      try {
        var deps = ctx.graphDatabaseAPI().getDependencyResolver();
        NeoStores stores = deps.resolveDependency(RecordStorageEngine.class)
            .testAccessNeoStores();
        deps.resolveDependency(IdController.class).maintenance(); // committed frees count
        CursorContext cursors = CursorContext.NULL_CONTEXT;
        long zeroed = 0;
        for (CommonAbstractStore<?, ?> store : List.<CommonAbstractStore<?, ?>>of(
            stores.getPropertyStore().getStringStore(), stores.getPropertyStore().getArrayStore())) {
          zeroed += zeroFree(store, cursors) + zeroTails(store, cursors);
        }
        LogFiles logs = deps.resolveDependency(LogFiles.class);
        logs.getLogFile().getLogRotation().rotateLogFile(() -> LogRotateEvent.NULL);
        // A checkpoint prunes only the logs before the one holding the last committed
        // transaction: commit one into the new log (a node made and removed again).
        var db = ctx.graphDatabaseAPI();
        Object marker = db.executeTransactionally(
            "CREATE (m:GraphmemLogMarker) RETURN elementId(m) AS id", Map.of(),
            result -> result.next().get("id"));
        db.executeTransactionally("MATCH (m:GraphmemLogMarker) WHERE elementId(m) = $id DELETE m",
            Map.of("id", marker));
        deps.resolveDependency(CheckPointer.class)
            .forceCheckPoint(new SimpleTriggerInfo("graphmem erasure"));
        AnyValue[] row = {Values.longValue(zeroed),
            Values.longValue(logs.getLogFile().getHighestLogVersion()),
            Values.longValue(logs.getLogFile().getLowestLogVersion())};
        return ResourceRawIterator.of(new AnyValue[][] {row});
      } catch (java.io.IOException | RuntimeException e) {
        throw new ProcedureException(Status.General.UnknownError, e,
            "graphmem.purgeErased failed: %s", e);
      }
    }

    /** Zeroes the bytes after the data of every record in use of a dynamic (string or array)
     *  store. Neo4j hands a freed record to a later write without clearing it, and that write
     *  puts its header and data at the record's start, so a shorter value leaves the end of
     *  the freed value (erased text among it) in the record's tail. Pages are read first and
     *  written only where a tail holds a nonzero byte, so a store whose tails are clear is
     *  read, not rewritten. Under the procedure's own transaction no record this reads in use
     *  can be freed and handed out again before it closes (a freed id is reused only once
     *  every transaction open at its freeing has closed), and the header is read again under
     *  the write cursor: the length a tail is cut at is the record's. Returns the records
     *  whose tail was zeroed. */
    private static long zeroTails(CommonAbstractStore<?, ?> store, CursorContext ctx)
        throws java.io.IOException {
      long high = store.getIdGenerator().getHighId();
      int size = store.getRecordSize();
      int perPage = store.getRecordsPerPage();
      long reserved = store.getNumberOfReservedLowIds();
      byte[] page = new byte[size * perPage];
      long zeroed = 0;
      try (PageCursor read = store.openPageCursorForReading(0, ctx)) {
        for (long p = 0; p * perPage < high; p++) {
          if (!read.next(p)) {
            break;
          }
          do {
            read.setOffset(0);
            read.getBytes(page);
          } while (read.shouldRetry());
          List<Integer> dirty = new ArrayList<>();
          for (int slot = 0; slot < perPage; slot++) {
            long id = p * perPage + slot;
            if (id >= reserved && id < high && tail(page, slot * size, size) > 0) {
              dirty.add(slot);
            }
          }
          if (dirty.isEmpty()) {
            continue;
          }
          try (PageCursor write = store.openPageCursorForWriting(p * perPage, ctx)) {
            if (!write.next(p)) {
              continue;
            }
            byte[] record = new byte[size];
            for (int slot : dirty) {
              write.setOffset(slot * size);
              write.getBytes(record);
              int from = tail(record, 0, size);
              if (from > 0) {
                write.setOffset(slot * size + from);
                write.putBytes(size - from, (byte) 0);
                zeroed++;
              }
            }
          }
        }
      }
      return zeroed;
    }

    /** Where the tail of the dynamic record at {@code at} in {@code data} begins, when the
     *  record is in use and its tail holds a nonzero byte; else 0. A dynamic record is a
     *  big-endian int (bit 28: in use; low 24 bits: the data's length), the next record's id
     *  (4 bytes), then the data. */
    private static int tail(byte[] data, int at, int size) {
      int head = ((data[at] & 0xFF) << 24) | ((data[at + 1] & 0xFF) << 16)
          | ((data[at + 2] & 0xFF) << 8) | (data[at + 3] & 0xFF);
      if ((head & 0x10000000) == 0) {
        return 0;
      }
      int from = 8 + (head & 0xFFFFFF);
      for (int i = from; i < size; i++) {
        if (data[at + i] != 0) {
          return from;
        }
      }
      return 0;
    }

    private static long zeroFree(CommonAbstractStore<?, ?> store, CursorContext ctx)
        throws java.io.IOException {
      IdGenerator gen = store.getIdGenerator();
      long high = gen.getHighId();
      int size = store.getRecordSize();
      int perPage = store.getRecordsPerPage();
      long reserved = store.getNumberOfReservedLowIds();
      List<Long> taken = new ArrayList<>();
      long zeroed = 0;
      try {
        for (int misses = 0; misses < 2; ) {
          long id = gen.nextId(ctx);
          taken.add(id);
          if (id >= high) {
            misses++; // two in a row: no free id is left below the old high id
            gen.maintenance(ctx); // load more free ids into the cache
            continue;
          }
          misses = 0;
          if (id < reserved) {
            continue;
          }
          long page = id / perPage;
          try (PageCursor cursor = store.openPageCursorForWriting(page, ctx)) {
            if (cursor.next(page)) {
              cursor.setOffset((int) (id % perPage) * size);
              cursor.putBytes(size, (byte) 0);
              zeroed++;
            }
          }
        }
      } finally {
        try (IdGenerator.TransactionalMarker marker = gen.transactionalMarker(ctx)) {
          for (long id : taken) {
            marker.markUnallocated(id);
          }
        }
      }
      return zeroed;
    }
  }
}
