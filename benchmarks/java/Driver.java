import java.io.*;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.HashMap;
import cern.jet.random.Distributions;
import cern.jet.random.engine.RandomEngine;
import mechanisms.*;

/** Runs one mechanism of the Java w-event benchmark (chryenix/streamdp-benchmark) on a CSV stream.
 *  java -cp CLASSES:STREAMDP_BENCH/lib/* Driver MECH FILE.csv EPS W RUNS [--set Class.FIELD=VALUE ...] [--dump PREFIX]   (benchmarks/java/README.md)
 *  MECH: Uniform Sample BD BA RescueDP_MD RescueDP1D BDwithGrouping Pegasus DSAT FAST_w AdaPub
 *  FILE.csv: T lines of d comma-separated counts (no header).
 *  Prints one line per run: "run i mae X"; --dump PREFIX writes run i's releases to PREFIX_i.csv.
 *
 *  java -cp ... Driver --serve   (the timing server of benchmarks/bench_java.py) reads one request a line on stdin and
 *  answers one line on stdout (their classes' own prints, stdout and stderr, go nowhere):
 *    load KEY FILE.csv            -> "ok"                         the stream, kept under KEY
 *    set Class.FIELD=VALUE        -> "ok"                         one of their static switches, as --set
 *    run MECH KEY EPS W N         -> "ok NS,NS,.. DRAWS,DRAWS,.."  N runs (a new MECH each), each run's clock (ns, around
 *                                                                 m.run alone: not the new instance, not the MAE) and the
 *                                                                 Laplace numbers it took from their pool
 *    pool                         -> "ok NS SIZE"                 the pool refilled (SIZE numbers, as LaplaceStream's
 *                                                                 constructor draws them, from its generator), timed
 *  It first answers "ready NS SIZE": the first fill of the pool (the class's initialiser, before any run), timed.
 *  An error answers "err MESSAGE" and the server goes on. */
public class Driver {
    /** Sets one static field "Class.FIELD=VALUE" of their classes (a class without a package is in `mechanisms`). */
    static void setField(String assignment) throws Exception {
        String[] kv = assignment.split("=", 2); int dot = kv[0].lastIndexOf('.');
        Class<?> c = Class.forName(kv[0].substring(0, dot).contains(".") ? kv[0].substring(0, dot) : "mechanisms." + kv[0].substring(0, dot));
        Field f = c.getDeclaredField(kv[0].substring(dot + 1)); f.setAccessible(true);
        Class<?> t = f.getType();
        if (t == boolean.class) f.setBoolean(null, Boolean.parseBoolean(kv[1]));
        else if (t == int.class) f.setInt(null, Integer.parseInt(kv[1]));
        else if (t == double.class) f.setDouble(null, Double.parseDouble(kv[1]));
        else throw new IllegalArgumentException("unsupported field type " + t);
    }

    /** A CSV stream: T lines of d comma-separated counts. */
    static ArrayList<double[]> read(String file) throws IOException {
        ArrayList<double[]> s = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new FileReader(file))) {
            String line;
            while ((line = r.readLine()) != null) {
                line = line.trim(); if (line.isEmpty()) continue;
                String[] tok = line.split(","); double[] v = new double[tok.length];
                for (int j = 0; j < tok.length; j++) v[j] = Double.parseDouble(tok[j]);
                s.add(v);
            }
        }
        return s;
    }

    public static void main(String[] a) throws Exception {
        if (a.length == 1 && a[0].equals("--serve")) { serve(); return; }
        String mech = a[0], file = a[1]; double eps = Double.parseDouble(a[2]); int w = Integer.parseInt(a[3]), runs = Integer.parseInt(a[4]);
        String dump = null;
        for (int i = 5; i < a.length; i++) {
            if (a[i].equals("--dump")) { dump = a[++i]; continue; }
            if (a[i].equals("--set")) setField(a[++i]);
        }
        ArrayList<double[]> s = read(file);
        for (int run = 0; run < runs; run++) {
            Mechansim m = (Mechansim) Class.forName("mechanisms." + mech).getDeclaredConstructor().newInstance();
            ArrayList<double[]> out = m.run(s, w, eps);
            System.out.println("run " + run + " mae " + Mechansim.mae(s, out));
            if (dump != null) {
                try (PrintWriter p = new PrintWriter(new FileWriter(dump + "_" + run + ".csv"))) {
                    for (double[] row : out) { StringBuilder b = new StringBuilder();
                        for (int j = 0; j < row.length; j++) { if (j > 0) b.append(','); b.append(row[j]); }
                        p.println(b); }
                }
            }
        }
    }

    /** A field of their LaplaceStream (package-private), read by reflection. */
    static Field poolField(String name) throws Exception {
        Field f = Class.forName("experiment.LaplaceStream").getDeclaredField(name); f.setAccessible(true); return f;
    }

    /** The timing server (see the class comment). */
    static void serve() throws Exception {
        PrintStream out = System.out;
        System.setOut(new PrintStream(OutputStream.nullOutputStream()));         // their classes print progress (AdaPub a line a run
        System.setErr(new PrintStream(OutputStream.nullOutputStream()));         // on stderr): not on our channel; errors answer "err"
        long t0 = System.nanoTime();
        Class.forName("experiment.LaplaceStream");                                 // its initialiser fills the pool
        long fill = System.nanoTime() - t0;
        Object pool = poolField("instance").get(null);
        Field counter = poolField("counter"), numbers = poolField("my_numbers"), generator = poolField("generator");
        int size = poolField("size").getInt(pool);
        out.println("ready " + fill + " " + size); out.flush();
        HashMap<String, ArrayList<double[]>> streams = new HashMap<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            String[] r = line.trim().split(" ");
            try {
                if (r[0].equals("load")) { streams.put(r[1], read(r[2])); out.println("ok"); }
                else if (r[0].equals("set")) { setField(r[1]); out.println("ok"); }
                else if (r[0].equals("pool")) {
                    double[] numbersRow = ((double[][]) numbers.get(pool))[0];
                    RandomEngine g = (RandomEngine) generator.get(null);
                    long p0 = System.nanoTime();
                    for (int i = 0; i < size; i++) numbersRow[i] = Distributions.nextLaplace(g);   // as LaplaceStream's constructor
                    out.println("ok " + (System.nanoTime() - p0) + " " + size);
                }
                else if (r[0].equals("run")) {
                    ArrayList<double[]> s = streams.get(r[2]);
                    if (s == null) throw new IllegalArgumentException("no stream loaded as " + r[2]);
                    double eps = Double.parseDouble(r[3]); int w = Integer.parseInt(r[4]), n = Integer.parseInt(r[5]);
                    StringBuilder ns = new StringBuilder(), draws = new StringBuilder();
                    for (int k = 0; k < n; k++) {
                        Mechansim m = (Mechansim) Class.forName("mechanisms." + r[1]).getDeclaredConstructor().newInstance();
                        int c0 = counter.getInt(pool);
                        long s0 = System.nanoTime();
                        m.run(s, w, eps);
                        long el = System.nanoTime() - s0;
                        int used = Math.floorMod(counter.getInt(pool) - c0, size);                 // the pool wraps at its end
                        if (k > 0) { ns.append(','); draws.append(','); }
                        ns.append(el); draws.append(used);
                    }
                    out.println("ok " + ns + " " + draws);
                }
                else out.println("err unknown request " + r[0]);
            } catch (Throwable e) {
                Throwable c = e.getCause() != null ? e.getCause() : e;
                out.println(("err " + c).replace('\n', ' '));
            }
            out.flush();
        }
    }
}
