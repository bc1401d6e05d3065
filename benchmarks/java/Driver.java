import java.io.*;
import java.lang.reflect.Field;
import java.util.ArrayList;
import mechanisms.*;

/** Runs one mechanism of the Java w-event benchmark (chryenix/streamdp-benchmark) on a CSV stream.
 *  java -cp CLASSES:STREAMDP_BENCH/lib/* Driver MECH FILE.csv EPS W RUNS [--set Class.FIELD=VALUE ...] [--dump PREFIX]   (benchmarks/java/README.md)
 *  MECH: Uniform Sample BD BA RescueDP_MD RescueDP1D BDwithGrouping Pegasus DSAT FAST_w AdaPub
 *  FILE.csv: T lines of d comma-separated counts (no header).
 *  Prints one line per run: "run i mae X"; --dump PREFIX writes run i's releases to PREFIX_i.csv. */
public class Driver {
    public static void main(String[] a) throws Exception {
        String mech = a[0], file = a[1]; double eps = Double.parseDouble(a[2]); int w = Integer.parseInt(a[3]), runs = Integer.parseInt(a[4]);
        String dump = null;
        for (int i = 5; i < a.length; i++) {
            if (a[i].equals("--dump")) { dump = a[++i]; continue; }
            if (a[i].equals("--set")) {
                String[] kv = a[++i].split("=", 2); int dot = kv[0].lastIndexOf('.');
                Class<?> c = Class.forName(kv[0].substring(0, dot).contains(".") ? kv[0].substring(0, dot) : "mechanisms." + kv[0].substring(0, dot));
                Field f = c.getDeclaredField(kv[0].substring(dot + 1)); f.setAccessible(true);
                Class<?> t = f.getType();
                if (t == boolean.class) f.setBoolean(null, Boolean.parseBoolean(kv[1]));
                else if (t == int.class) f.setInt(null, Integer.parseInt(kv[1]));
                else if (t == double.class) f.setDouble(null, Double.parseDouble(kv[1]));
                else throw new IllegalArgumentException("unsupported field type " + t);
            }
        }
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
}
